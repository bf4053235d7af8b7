"""`deploy-runner drift`: plan every release of an environment against the cluster and
report what drifted (runner.actions.drift).

    deploy-runner drift [--spec F] [--environment E] [--output text|json]
                        [--report auto|github|none] [--concurrency N]

Exit codes: 0 no drift, 2 drift, 1 an error (a release could not be planned, the spec is
wrong). Inside GitHub Actions (or with --report github) a check run
`deploy-runner drift (<environment>)` and one issue per environment labelled
deploy-runner/drift (docs/github.md, "Drift").
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, no_args
from runner.cli.run import diff_flags, output_flag, report_flags, spec_flags
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Plan every release of the spec's environment against the cluster, as `run --plan` plans
it (every object dry-run applied on the server and compared with its live copy; no
--release, no `when`), and report drift: objects changed, added or removed outside the
spec, releases whose deployed revision is not what the spec would deploy, releases
missing (or present though `installed: false`). Nothing is written to the cluster.
Secret values are never shown. Exit code 0: no drift; 2: drift; 1: an error.
"""


def build(_name: str) -> Command:
    return Command("drift", "report what in the cluster is not what the spec deploys",
                   long=LONG, args=no_args, run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    spec_flags(fs)
    output_flag(fs)
    fs.int("concurrency", "how many releases are planned at once", default=4)
    diff_flags(fs)
    report_flags(fs)


def handle(args: Namespace) -> int:
    from runner.actions.diff import DiffOptions
    from runner.actions.drift import find_drift
    from runner.actions.run import RunOptions, add_secret_values
    from runner.cli.run import (
        _reports_to_github,
        connect,
        flags_access,
        load,
        release_messages,
        spec_namespace,
    )

    if args.concurrency < 1:
        raise RunnerError(f"--concurrency {args.concurrency}: must be at least 1")
    access = flags_access(args)
    spec, context = load(args, lambda eks: spec_namespace(access, eks))
    base = connect(args, spec.cluster_access(access))
    options = RunOptions(plan=True, concurrency=args.concurrency,
                         diff=DiffOptions(context=args.context, view=args.view))
    add_secret_values(options.redactor, spec.releases)
    redact = options.redactor.redact
    tell = release_messages(redact, debug=bool(args.debug))
    if _reports_to_github(args):
        from runner.report.github.drift import DriftRun

        return DriftRun(spec, context, base, options, tell).run()
    with options.redactor.hiding_errors():
        found = find_drift(spec, context, base.in_namespace, options, on_message=tell)
    _print(found, args.output, options.redactor)
    return found.exit_code


def _print(found: Any, output: str, redactor: Any) -> None:
    from runner.actions.drift import describe

    outcomes = {r.key: r for r in found.result.releases}
    if output == "json":
        import json

        data = {"environment": found.environment, "drift": found.drifted,
                "exit_code": found.exit_code, "releases": [
                    {"name": r.name, "namespace": r.namespace, "drift": list(r.kinds),
                     "error": r.error or None, "details": describe(r, outcomes[f"{r.namespace}/{r.name}"]),
                     "plan": outcomes[f"{r.namespace}/{r.name}"].to_json()}
                    for r in found.releases]}
        sys.stdout.write(json.dumps(redactor.redact_data(data), indent=2) + "\n")
        return
    lines = []
    for release in found.releases:
        details = describe(release, outcomes[f"{release.namespace}/{release.name}"])
        state = "error" if release.error else "drift" if release.drifted else "no drift"
        lines.append(f"{release.namespace}/{release.name}: {state}")
        lines += [f"  {line}" for line in details]
    verdict = ("error" if found.failed else "drift" if found.drifted else "no drift")
    lines.append(f"environment {found.environment}: {verdict}")
    sys.stdout.write(redactor.redact("\n".join(lines) + "\n"))
