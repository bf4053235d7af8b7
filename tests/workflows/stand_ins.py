"""Stand-ins for the remote actions the examples and action.yml use, each doing on this
machine what the real one does for the steps after it (the executor runs them in place of
the JavaScript actions, which need GitHub's services):

- actions/checkout: the repository's files into the workspace.
- actions/setup-python: a Python's path as its `python-path` output (this machine's:
  there is no tool cache of versions here), put on PATH unless update-environment is false.
- actions/cache/restore, actions/cache/save: a directory of archives as the cache service,
  by exact key; a key saved once is never overwritten (GitHub refuses it with a warning).
- aws-actions/configure-aws-credentials: GitHub's OIDC token exchanged for a role's
  credentials (sts:AssumeRoleWithWebIdentity, at AWS_ENDPOINT_URL: moto's), exported to
  the job's environment and masked, as the real action does.
Each refuses an input it does not know, so an example cannot pass on a typo.
"""

from __future__ import annotations

import shutil
import sys
import tarfile
from pathlib import Path

from tests.workflows.executor import Call, StandIn, WorkflowError

CHECKOUT_INPUTS = {"ref", "fetch-depth", "persist-credentials", "path", "token"}
SETUP_PYTHON_INPUTS = {"python-version", "update-environment", "cache"}
CACHE_INPUTS = {"path", "key", "restore-keys", "fail-on-cache-miss", "lookup-only",
                "enableCrossOsArchive"}
AWS_INPUTS = {"role-to-assume", "aws-region", "role-session-name", "audience",
              "role-duration-seconds", "mask-aws-account-id"}


def known(call: Call, allowed: set[str], action: str) -> None:
    unknown = set(call.inputs) - allowed
    if unknown:
        raise WorkflowError(f"{action}: inputs the stand-in does not know: {sorted(unknown)}")


def checkout(source: Path) -> StandIn:
    def run(call: Call) -> None:
        known(call, CHECKOUT_INPUTS, "actions/checkout")
        shutil.copytree(source, call.job.runner.workspace, dirs_exist_ok=True, symlinks=True)

    return run


def setup_python(python: str | None = None) -> StandIn:
    def run(call: Call) -> None:
        known(call, SETUP_PYTHON_INPUTS, "actions/setup-python")
        found = python or getattr(sys, "_base_executable", sys.executable)
        call.job.log.append(f"setup-python: Python {call.inputs.get('python-version')} "
                            f"asked, {found} given")
        call.outputs.update({"python-path": found, "python-version": ".".join(
            map(str, sys.version_info[:3]))})
        if call.inputs.get("update-environment", "true") != "false":
            call.job.path.insert(0, str(Path(found).parent))

    return run


def cache(store: Path) -> tuple[StandIn, StandIn]:
    store.mkdir(parents=True, exist_ok=True)

    def archive(key: str) -> Path:
        if not key or "/" in key or len(key) > 512:
            raise WorkflowError(f"actions/cache: a key GitHub refuses: {key!r}")
        return store / f"{key}.tar"

    def restore(call: Call) -> None:
        known(call, CACHE_INPUTS, "actions/cache/restore")
        saved = archive(call.inputs["key"])
        target = Path(call.inputs["path"])
        hit = saved.exists()
        if hit:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tarfile.open(saved) as tar:  # our own archive (filter= is 3.11.4's)
                tar.extractall(target.parent)
        call.outputs.update({"cache-hit": "true" if hit else "false",
                             "cache-primary-key": call.inputs["key"],
                             "cache-matched-key": call.inputs["key"] if hit else ""})

    def save(call: Call) -> None:
        known(call, CACHE_INPUTS, "actions/cache/save")
        saved = archive(call.inputs["key"])
        if saved.exists():
            call.job.log.append(f"Failed to save: cache entry {call.inputs['key']} exists")
            return
        source = Path(call.inputs["path"])
        partial = saved.with_suffix(".partial")
        with tarfile.open(partial, "w") as tar:
            tar.add(source, arcname=source.name)
        partial.rename(saved)
        call.outputs["cache-id"] = saved.name

    return restore, save


def configure_aws_credentials(call: Call) -> None:
    import botocore.session
    from botocore import UNSIGNED
    from botocore.config import Config

    known(call, AWS_INPUTS, "aws-actions/configure-aws-credentials")
    region = call.inputs["aws-region"]
    sts = botocore.session.Session().create_client(
        "sts", region_name=region, endpoint_url=call.env["AWS_ENDPOINT_URL"],
        config=Config(signature_version=UNSIGNED))
    token = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOm93bmVyL3JlcG86cmVmOnJlZnMvaGVhZHMvbWFpbiJ9.c2ln"
    answer = sts.assume_role_with_web_identity(
        RoleArn=call.inputs["role-to-assume"],
        RoleSessionName=call.inputs.get("role-session-name") or "GitHubActions",
        WebIdentityToken=token)["Credentials"]
    for name, value in (("AWS_ACCESS_KEY_ID", answer["AccessKeyId"]),
                        ("AWS_SECRET_ACCESS_KEY", answer["SecretAccessKey"]),
                        ("AWS_SESSION_TOKEN", answer["SessionToken"]),
                        ("AWS_REGION", region), ("AWS_DEFAULT_REGION", region)):
        call.set_env(name, value)
    for secret in (answer["SecretAccessKey"], answer["SessionToken"]):
        call.mask(secret)


def stand_ins(source: Path, cache_store: Path, python: str | None = None) -> dict[str, StandIn]:
    restore, save = cache(cache_store)
    return {"actions/checkout": checkout(source), "actions/setup-python": setup_python(python),
            "actions/cache/restore": restore, "actions/cache/save": save,
            "aws-actions/configure-aws-credentials": configure_aws_credentials}
