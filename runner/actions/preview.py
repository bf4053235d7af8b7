"""Pull-request previews on the cluster side: a namespace per pull request, labelled so
that it can be found again, torn down when the pull request closes, collected when
stale (`deploy-runner preview gc`).

The GitHub side (deployments, statuses) is runner.report.github.deployments; whether a
pull request is closed is asked by the caller, so this module talks to no API but the
cluster's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from runner.actions.journal import Journal
from runner.actions.release_config import ActionConfig
from runner.actions.uninstall import UninstallOptions, uninstall
from runner.errors import RunnerError
from runner.kube.namespaces import Namespaces
from runner.spec.resolve import ReleaseSpec, ValuesSource, preview_sets

PREVIEW_LABEL = "deploy-runner/preview"
PR_LABEL = "deploy-runner/pr"
REPOSITORY_ANNOTATION = "deploy-runner/repository"
HEAD_SHA_ANNOTATION = "deploy-runner/head-sha"
DEPLOYED_AT_ANNOTATION = "deploy-runner/deployed-at"  # the last deploy, for `gc --ttl`
# the GitHub deployment environments of the releases deployed here (a JSON list), so that
# `gc`, which has no spec, marks the right ones inactive (preview.environment may be set)
ENVIRONMENTS_ANNOTATION = "deploy-runner/environments"
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
MAX_LABEL = 63
TEARDOWN_WAIT = 120.0


class PreviewError(RunnerError):
    pass


@dataclass(frozen=True)
class Preview:
    namespace: str
    pull_number: int
    repository: str
    head_sha: str
    deployed_at: datetime | None
    environments: tuple[str, ...] = ()  # as recorded by `prepare`; () on older namespaces


@dataclass
class Teardown:
    namespace: str
    uninstalled: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    remaining: tuple[str, ...] = ()  # what keeps the namespace after the wait


def namespace_name(repository: str, pull_number: int, configured: str = "") -> str:
    """`preview.namespace` when set (it must be a DNS label), else `<repo>-pr-<number>`,
    the repository's name shortened so that the whole stays within 63 characters."""
    if configured:
        if len(configured) > MAX_LABEL or not DNS_LABEL.match(configured):
            raise PreviewError(f"preview.namespace {configured!r} is not a valid namespace "
                               "name (a DNS label: at most 63 of a-z, 0-9 and '-', starting "
                               "and ending with a letter or digit)")
        return configured
    suffix = f"pr-{pull_number}"
    repo = re.sub(r"[^a-z0-9]+", "-", repository.rsplit("/", 1)[-1].lower()).strip("-")
    repo = repo[:MAX_LABEL - len(suffix) - 1].rstrip("-")
    return f"{repo}-{suffix}" if repo else suffix


def prepare(namespaces: Namespaces, name: str, *, repository: str, pull_number: int,
            head_sha: str, now: datetime, environment: str) -> None:
    """The preview's namespace, created or updated with its labels and annotations.

    `environment` (the release's GitHub deployment environment) is added to those already
    recorded: several releases may share the namespace, and an environment renamed by a
    later push still has an active deployment until the preview is removed."""
    existing = namespaces.get(name)
    recorded = _environments(existing.annotations) if existing is not None else ()
    namespaces.apply(name, {PREVIEW_LABEL: "true", PR_LABEL: str(pull_number)}, {
        REPOSITORY_ANNOTATION: repository, HEAD_SHA_ANNOTATION: head_sha,
        DEPLOYED_AT_ANNOTATION: now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        ENVIRONMENTS_ANNOTATION: json.dumps(list(dict.fromkeys([*recorded, environment])))})


def _environments(annotations: dict[str, str]) -> tuple[str, ...]:
    """The recorded environments; () when absent or not a list of names (edited by hand)."""
    try:
        names = json.loads(annotations.get(ENVIRONMENTS_ANNOTATION) or "[]")
    except ValueError:
        return ()
    if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
        return ()
    return tuple(names)


def teardown(cfg: ActionConfig, journal: Journal, namespaces: Namespaces, name: str,
             wait: float = TEARDOWN_WAIT) -> Teardown:
    """Uninstall every release in the preview's namespace (their hooks run), delete the
    namespace, and wait up to `wait` seconds for its finalizers."""
    result = Teardown(name)
    if namespaces.get(name) is None:
        return result
    names = sorted({r.name for r in cfg.storage.driver.query({"owner": "helm"})})
    for release in names:
        try:
            uninstall(cfg, journal, UninstallOptions(release, ignore_not_found=True, timeout=wait))
            result.uninstalled.append(release)
        except RunnerError as err:
            result.errors.append(f"{release}: {err}")
    namespaces.delete(name)
    left = namespaces.wait_gone(name, wait)
    if left is not None:
        result.remaining = left.conditions or (f"namespace {name} is still {left.phase or 'there'}",)
    return result


def previews(namespaces: Namespaces) -> list[Preview]:
    found = []
    for info in namespaces.list(f"{PREVIEW_LABEL}=true"):
        number = info.labels.get(PR_LABEL, "")
        stamp = info.annotations.get(DEPLOYED_AT_ANNOTATION) or info.created
        found.append(Preview(info.name, int(number) if number.isdigit() else 0,
                             info.annotations.get(REPOSITORY_ANNOTATION, ""),
                             info.annotations.get(HEAD_SHA_ANNOTATION, ""), _time(stamp),
                             _environments(info.annotations)))
    return found


def stale(found: list[Preview], *, repository: str, closed: Callable[[int], bool | None],
          ttl: timedelta | None, now: datetime) -> list[tuple[Preview, str]]:
    """The previews to remove, each with why: its pull request is closed (asked only for
    previews of `repository`; None means the answer is unknown) or its last deploy is
    older than `ttl`."""
    chosen = []
    for preview in found:
        if preview.repository == repository and preview.pull_number \
                and closed(preview.pull_number):
            chosen.append((preview, f"pull request #{preview.pull_number} is closed"))
        elif ttl is not None and preview.deployed_at is not None \
                and now - preview.deployed_at > ttl:
            chosen.append((preview, f"last deployed {preview.deployed_at:%Y-%m-%dT%H:%M:%SZ}, "
                                    f"older than {ttl}"))
    return chosen


def _time(stamp: str) -> datetime | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def previewed(releases: list[ReleaseSpec], *, repository: str, pull_number: int,
              substitute: Callable[[str], str], base_dir: str) -> list[ReleaseSpec]:
    """The releases with `preview.enabled`, as they deploy into the pull request's preview:
    in its namespace, with the preview's values and sets after their own (variables of
    the preview block substituted now), `needs` among them kept (renamed to the preview's
    keys), others dropped: what they need is not deployed by a pull request."""
    chosen = [r for r in releases if r.preview is not None and r.preview.enabled]
    renamed = {}
    moved = []
    for release in chosen:
        preview = release.preview
        namespace = namespace_name(repository, pull_number, substitute(preview.namespace or ""))
        values = [ValuesSource(file=os.path.normpath(os.path.join(base_dir, substitute(entry))))
                  if isinstance(entry, str) else
                  ValuesSource(inline=_substituted(entry, substitute), origin="preview")
                  for entry in preview.values]
        sets = {flag: list(items) for flag, items in release.sets.items()}
        for flag, items in preview_sets(_substituted_preview(preview, substitute),
                                        base_dir).items():
            sets.setdefault(flag, []).extend(items)
        moved.append(dataclasses.replace(release, namespace=namespace,
                                         values=[*release.values, *values], sets=sets))
        renamed[release.key] = moved[-1].key
    for release in moved:
        release.needs = [renamed[need] for need in release.needs if need in renamed]
    return moved


def _substituted(value: Any, substitute: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return substitute(value)
    if isinstance(value, dict):
        return {key: _substituted(item, substitute) for key, item in value.items()}
    if isinstance(value, list):
        return [_substituted(item, substitute) for item in value]
    return value


def _substituted_preview(preview: Any, substitute: Callable[[str], str]) -> Any:
    """The preview block with its `set` entries' values substituted."""
    entries = [entry.model_copy(update={
        key: _substituted(getattr(entry, key), substitute)
        for key in ("value", "values", "file") if getattr(entry, key) is not None})
        for entry in preview.set]
    return preview.model_copy(update={"set": entries})
