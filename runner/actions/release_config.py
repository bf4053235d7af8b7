"""What every release action needs: the cluster (a runner.kube.cluster.Cluster), the
release namespace, the record storage (HELM_DRIVER: secret | configmap | memory),
the per-release lock; and the rules on release names, labels and stranded records.
What one command tells and captures is its Journal (runner.actions.journal)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from runner.actions.journal import Journal
from runner.errors import RunnerError
from runner.kube.client import KubeClient
from runner.kube.cluster import Cluster, KubeCluster, Lock
from runner.kube.kubeconfig import ClusterAccess
from runner.release.record import (
    FAILED,
    PENDING_STATUSES,
    Release,
    go_time_now,
    parse_go_time,
)
from runner.release.storage import MemoryDriver, Storage
from runner.release.storage.kube import KubeDriver

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
MAX_NAME_LENGTH = 53
ERR_PENDING = "another operation (install/upgrade/rollback) is in progress"
DEFAULT_TIMEOUT = 300.0


class PendingError(RunnerError):
    """Helm's errPending: the release has an operation in flight."""

    def __init__(self, detail: str = "") -> None:
        super().__init__(ERR_PENDING + (f" ({detail})" if detail else ""))


@dataclass
class ActionConfig:
    """The services a release action works on: the cluster, the release namespace and its
    record storage, the per-release lock. What one command tells and captures while it
    works is its Journal (runner.actions.journal), made per command (per release of a run)."""

    cluster: Cluster | None
    namespace: str
    storage: Storage
    # Records kept in memory (HELM_DRIVER=memory) live for one run: no lock to take.
    locking: bool = True

    @classmethod
    def connect(cls, namespace: str | None = None, kubeconfig: str | None = None,
                context: str | None = None, driver: str | None = None,
                access: ClusterAccess | None = None, journal: Journal | None = None) -> ActionConfig:
        """`access`: Helm's connection flags over its HELM_* variables; without it, the
        variables with these three flags over them. `journal` hears what the cluster itself
        tells (its waits' progress, the steps Helm logs, the API server's warnings): the
        command's; None for a connection that outlives one command's journal (a spec run's,
        a warm Lambda's), whose cluster tells nothing."""
        if access is None:
            access = ClusterAccess.from_env().with_flags(namespace=namespace or None,
                                                         kubeconfig=kubeconfig or None, context=context or None)
        heard = journal is not None
        client = KubeClient.connect(access, on_debug=journal.debug if heard else None,
                                    on_warning=journal.server_warning if heard else None)
        ns = client.default_namespace
        store = _driver(client, ns, driver)
        cluster = KubeCluster(client, on_progress=journal.tell_progress if heard else None,
                              on_log=journal.warn if heard else None)
        return cls(cluster, ns, Storage(store), locking=not isinstance(store, MemoryDriver))

    def in_namespace(self, namespace: str) -> ActionConfig:
        """The same cluster, with the release storage of `namespace` (a spec's releases each
        live in their own)."""
        driver = self.storage.driver
        if isinstance(driver, KubeDriver):
            driver = KubeDriver(driver.api, namespace, driver.plural)
        return ActionConfig(self.cluster, namespace, Storage(driver), locking=self.locking)

    def require_cluster(self) -> Cluster:
        if self.cluster is None:
            raise RunnerError("this operation needs a cluster connection")
        return self.cluster

    def check_reachable(self, warn: Callable[[str], None]) -> None:
        """Install.Run's first step (install, template --dry-run=server): the cluster answers,
        or Helm's `cluster reachability check failed: ...` (logged to `warn`, then raised)."""
        from runner.golang.slog import text_line
        from runner.kube.client import ClusterUnreachable

        try:
            self.require_cluster().server_version()
        except ClusterUnreachable as err:
            warn(text_line("ERROR", str(err)))
            raise

    def kube(self) -> KubeClient:
        """The API client itself, for read-only views that format what the server
        returns (status RESOURCES tables); actions use require_cluster()."""
        client = getattr(self.require_cluster(), "client", None)
        if not isinstance(client, KubeClient):
            raise RunnerError("this operation needs a Kubernetes API connection")
        return client

    @contextmanager
    def locked(self, name: str, journal: Journal, wait_seconds: float = 0.0) -> Iterator[Lock | None]:
        """Hold the release's Lease for the duration (none without a cluster or locking);
        waiting for it is told to `journal`. An action that runs another inside its own
        (upgrade's rollback-on-failure) passes the lock it holds on instead of locking again."""
        if self.cluster is None or not self.locking:
            yield None
            return
        from runner.actions.results import PROGRESS  # writes only: a read loads no results

        lock = self.cluster.lock(self.namespace, name, wait_seconds,
                                 on_wait=lambda text: journal.tell(PROGRESS, text))
        try:
            yield lock
        finally:
            _give_back(lock, journal)


def _give_back(lock: Lock, journal: Journal) -> None:
    """Release the lock; one the API server could not be told about (gone for longer
    than the transport's retries) expires on its own, and the operation's outcome
    stands (it must not turn a deployed release into a failed command)."""
    try:
        lock.release_lock()
    except RunnerError as err:
        journal.warn(f"the release lock was not released ({err}); another operation can take "
                     "it over once it expires")


def _driver(client: KubeClient, namespace: str, name: str | None) -> Any:
    choice = (name or os.environ.get("HELM_DRIVER") or "secret").lower()
    if choice in ("secret", "secrets", ""):
        return KubeDriver(client, namespace, "secrets")
    if choice in ("configmap", "configmaps"):
        return KubeDriver(client, namespace, "configmaps")
    if choice == "memory":
        return MemoryDriver()
    raise RunnerError(f'"{choice}" is not a supported storage driver')


def validate_name(name: str) -> None:
    if not name or len(name) > MAX_NAME_LENGTH or not _NAME.match(name):
        raise RunnerError(
            f'release name "{name}": invalid release name, must match regex '
            f"{_NAME.pattern} and the length must not be longer than {MAX_NAME_LENGTH}")


def check_labels(labels: dict[str, str]) -> dict[str, str]:
    """--labels must not use the six labels Helm's storage reserves."""
    from runner.release.storage.driver import RESERVED_LABELS

    if any(key in RESERVED_LABELS for key in labels):
        system = " ".join(["name", "owner", "status", "version", "createdAt", "modifiedAt"])
        raise RunnerError("user supplied labels contains system reserved label name. "
                          f"System labels: [{system}]")
    return dict(labels)


def merge_labels(current: dict[str, str], wanted: dict[str, str]) -> dict[str, str]:
    """mergeCustomLabels: new over old; a value of "null" removes the label."""
    merged = {**current, **check_labels(wanted)}
    return {k: v for k, v in merged.items() if v != "null"}


def recover_stranded(cfg: ActionConfig, last: Release, lock: Lock | None,
                     timeout: float) -> bool:
    """A pending latest record whose operation is gone is marked failed (True);
    one that may still be running raises Helm's errPending."""
    if last.info.status not in PENDING_STATUSES:
        return False
    if lock is not None and lock.taken_over is not None:
        reason = (f"its lock holder {lock.taken_over.identity} stopped renewing at "
                  f"{lock.taken_over.renewed}")
    else:
        started = parse_go_time(last.info.last_deployed) if last.info.last_deployed else None
        age = (datetime.now(UTC) - started).total_seconds() if started else 0.0
        if started is None or age < timeout:
            raise PendingError()
        reason = f"no lock and no progress for {int(age)}s (timeout {int(timeout)}s)"
    last.info.status = FAILED
    last.info.description = f"Stranded {last.info.description!r}: operation abandoned; {reason}"
    cfg.storage.update(last)
    return True


def now() -> str:
    return go_time_now()
