"""`make demo`: the product on the local testbed, as a user types it.

Starts the testbed, then runs deploy-runner commands against it, printing each one
(`$ deploy-runner install ...`) before its output, so every step can be replayed by
hand on a cluster (`python -m testbed up` keeps one running):

- examples/spec: a spec of three releases is planned (nothing written), deployed
  (storefront after the two it needs), run again (nothing changed: no revision), then
  its production environment's change is planned (the diff) and deployed;
- examples/migrating-app is installed at chart 1.4.0, packaged as 2.0.0 and upgraded
  with --release-history-max 2 — its templates see the deployed 1.4.0 in
  .DeployedChart and add a migration Job hook for the major-version jump — then
  rolled back with --release-history-max 2: the 1.4.0 chart is rendered again and
  runs a down-migration;
- last, the spec's default environment is deployed again as a GitHub Actions step on a
  push (the log GitHub shows), against a local GitHub server, and the check runs it
  posted are rendered as markdown, as the commit's Checks tab shows them.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from runner.errors import RunnerError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
EXAMPLE = EXAMPLES / "migrating-app"
SPEC = EXAMPLES / "spec" / "deploy-runner.yaml"
NAME, NAMESPACE = "shop", "demo"
SPEC_NAMESPACE = "store"  # where examples/spec deploys


def main() -> int:
    from testbed.cluster import Testbed

    print("starting the testbed (etcd, kube-apiserver, controller-manager, scheduler, kwok)...",
          flush=True)
    try:
        with Testbed.start(log=lambda message: None) as bed, \
                tempfile.TemporaryDirectory(prefix="deploy-runner-demo-") as scratch:
            return run(str(bed.kubeconfig), Path(scratch))
    except RunnerError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1


def steps(scratch: Path) -> list[tuple[str, list[str]]]:
    """What the demo shows and the command line (after `deploy-runner`) that shows it."""
    chart = _as_typed(EXAMPLE)
    packaged = _as_typed(scratch / "migrating-app-2.0.0.tgz")
    spec = _as_typed(SPEC)
    return [
        ("Plan the spec: postgres and redis, and storefront which needs both. Nothing is written",
         ["run", "--spec", spec, "--plan"]),
        ("Deploy it: postgres and redis at once, then storefront", ["run", "--spec", spec]),
        ("Again: nothing changed, so no release gets a new revision", ["run", "--spec", spec]),
        ("The production environment scales storefront up: its diff against the cluster",
         ["run", "--spec", spec, "--environment", "production", "--plan"]),
        ("Deploy production: only storefront is upgraded",
         ["run", "--spec", spec, "--environment", "production"]),
        ("storefront's history: one revision per real change",
         ["history", "storefront", "-n", SPEC_NAMESPACE]),
        ("Install chart 1.4.0 (server-side apply, as Helm 4 does)",
         ["install", NAME, chart, "-n", NAMESPACE, "--create-namespace"]),
        ("Package the same chart as 2.0.0: a major version up",
         ["package", chart, "--version", "2.0.0", "--app-version", "2.0", "-d", _as_typed(scratch)]),
        ("Upgrade to 2.0.0; with --release-history-max 2 the templates see the deployed "
         "1.4.0 (.DeployedChart)\n# and add a pre-upgrade Job that migrates the data",
         ["upgrade", NAME, packaged, "-n", NAMESPACE, "--release-history-max", "2",
          "--set", "greeting=hello from v2"]),
        ("The hook the upgrade ran before applying 2.0.0 (had it failed, so would the upgrade)",
         ["get", "hooks", NAME, "-n", NAMESPACE]),
        ("What the templates saw in .Release.History: the ConfigMap shop-history",
         ["get", "manifest", NAME, "-n", NAMESPACE]),
        ("Roll back to revision 1 with --release-history-max 2: chart 1.4.0 is rendered again and "
         "sees the deployed 2.0.0\n# (.DeployedChart), so a down-migration Job runs first",
         ["rollback", NAME, "1", "-n", NAMESPACE, "--release-history-max", "2"]),
        ("The hook the rollback ran", ["get", "hooks", NAME, "-n", NAMESPACE]),
        ("The history, as helm history prints it", ["history", NAME, "-n", NAMESPACE]),
    ]


def run(kubeconfig: str, scratch: Path) -> int:
    """Run the demo's commands against the cluster of `kubeconfig`, each printed first."""
    from runner.cli import main as deploy_runner

    print(f"\n$ export KUBECONFIG={kubeconfig}", flush=True)
    with _environment(KUBECONFIG=kubeconfig):
        for title, argv in steps(scratch):
            print(f"\n# {title}\n$ deploy-runner {shlex.join(argv)}", flush=True)
            code = deploy_runner(argv)
            sys.stdout.flush()
            if code != 0:
                return code
        return as_github_step(scratch)


def as_github_step(scratch: Path) -> int:
    """`run` of the spec's default environment (storefront scales back down) as a GitHub
    Actions step on a push, reporting to a local GitHub server; then its check runs."""
    import json

    from runner.cli import main as deploy_runner
    from runner.report.terminal import check_run_markdown, render
    from testbed import octokit
    from testbed.github import TOKEN, FakeGitHub

    event = scratch / "event.json"
    event.write_text(json.dumps(octokit.event_payload("push")))
    argv = ["run", "--spec", _as_typed(SPEC), "--report", "github"]
    print("\n# The same spec as a GitHub Actions step on a push (back to the default "
          "environment):\n# the step's log, then the check runs it posted to a local GitHub "
          f"server\n$ deploy-runner {shlex.join(argv)}", flush=True)
    with FakeGitHub() as github, _environment(
            GITHUB_ACTIONS="true", GITHUB_EVENT_NAME="push", GITHUB_EVENT_PATH=str(event),
            GITHUB_SHA="0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c", GITHUB_REF="refs/heads/main",
            GITHUB_REPOSITORY=github.repository, GITHUB_WORKSPACE=str(EXAMPLES.parent),
            GITHUB_API_URL=github.url, GITHUB_TOKEN=TOKEN, GITHUB_RUN_ID="1",
            GITHUB_OUTPUT=str(scratch / "output"), GITHUB_STEP_SUMMARY=str(scratch / "summary"),
            DEPLOY_RUNNER_RESULT=str(scratch / "result.json")):
        code = deploy_runner(argv)
        for run in github.check_runs.values():
            print(f"\n{'─' * 100}", flush=True)
            render(check_run_markdown(run.fields, run.annotations))
    return code


def _as_typed(path: Path) -> str:
    """A path as a user in the current directory would type it: relative when below it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@contextlib.contextmanager
def _environment(**variables: str) -> Iterator[None]:
    """The variables set for the demo's commands, as `export` set them, and restored after."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


if __name__ == "__main__":
    sys.exit(main())
