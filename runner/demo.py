"""`make demo`: the product on the local testbed.

Installs examples/migrating-app (chart 1.4.0), upgrades it to chart 2.0.0
with --release-history-max 2 — its templates see the deployed 1.4.0 in
.DeployedChart and add a migration Job hook for the major-version jump —
then rolls back to revision 1, printing at each step what a user wants to
see: revision, status, the resources changed, and the history as `helm
history` prints it.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from runner.actions import query
from runner.actions.install import InstallOptions, install
from runner.actions.release_config import ActionConfig
from runner.actions.results import ReleaseResult
from runner.actions.rollback import RollbackOptions, rollback
from runner.actions.upgrade import UpgradeOptions, upgrade
from runner.cli.printers import ansic
from runner.encoding.uitable import render_table
from runner.errors import RunnerError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "migrating-app"
NAME, NAMESPACE = "shop", "demo"


def main() -> int:
    from runner.testbed.cluster import Testbed

    print("starting the testbed (etcd, kube-apiserver, controller-manager, scheduler, kwok)...")
    try:
        with Testbed.start(log=lambda message: None) as bed, tempfile.TemporaryDirectory() as tmp:
            return _run(str(bed.kubeconfig), Path(tmp))
    except RunnerError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1


def _run(kubeconfig: str, scratch: Path) -> int:
    v1 = scratch / "v1"
    shutil.copytree(EXAMPLE, v1)
    v2 = scratch / "v2"
    shutil.copytree(EXAMPLE, v2)
    chart_yaml = v2 / "Chart.yaml"
    chart_yaml.write_text(chart_yaml.read_text().replace("version: 1.4.0", "version: 2.0.0")
                          .replace('appVersion: "1.4"', 'appVersion: "2.0"'))
    cfg = ActionConfig.connect(NAMESPACE, kubeconfig)

    _step("1. install chart 1.4.0 (server-side apply)")
    _show(cfg, install(cfg, InstallOptions(name=NAME, chart=str(v1), create_namespace=True)))
    _step("2. upgrade to chart 2.0.0 with --release-history-max 2")
    _show(cfg, upgrade(cfg, UpgradeOptions(name=NAME, chart=str(v2), release_history_max=2,
                                           values={"greeting": "hello from v2"})))
    _step("3. roll back to revision 1")
    _show(cfg, rollback(cfg, RollbackOptions(name=NAME, revision=1)))
    return 0


def _step(title: str) -> None:
    print(f"\n=== {title}")


def _show(cfg: ActionConfig, result: ReleaseResult) -> None:
    release = result.release
    print(f"revision {release.version}: {release.info.status} ({release.info.description}), "
          f"apply method {release.apply_method}")
    for label, items in (("created", result.created), ("updated", result.updated),
                         ("deleted", result.deleted), ("kept", result.kept)):
        if items:
            print(f"  {label}: {', '.join(items)}")
    for hook in release.hooks:
        print(f"  hook {hook.kind}/{hook.name} ({', '.join(hook.events)}): {hook.last_run.phase or 'not run'}")
    if release.info.notes:
        print("  notes: " + release.info.notes.strip().replace("\n", "\n         "))
    previous = _history_configmap(cfg)
    if previous:
        print("  .Release.History as the templates saw it:" + previous.rstrip())
    rows = [["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"]]
    rows += [[str(r.revision), ansic(r.updated), r.status, r.chart, r.app_version, r.description]
             for r in query.history(cfg, NAME)]
    print("  history:\n    " + render_table(rows).rstrip().replace("\n", "\n    "))


def _history_configmap(cfg: ActionConfig) -> str:
    reply = cfg.kube().request("GET", f"/api/v1/namespaces/{NAMESPACE}/configmaps/{NAME}-history")
    data = reply.body.get("data") or {} if reply.ok else {}
    return "".join(f"\n    {line}" for line in str(data.get("previous", "")).splitlines() if line.strip())


if __name__ == "__main__":
    sys.exit(main())
