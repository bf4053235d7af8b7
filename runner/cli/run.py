"""`deploy-runner run`: deploy (or with --plan, preview) the releases of a spec.

    deploy-runner run [--spec F] [--environment E] [--release NAME ...] [--plan]
                      [--sync] [--detailed-exitcode] [--output text|json|markdown]
                      [--concurrency N]

The result goes to standard output (text, one JSON document, or markdown); what the
deploys tell while they run goes to standard error, each line after its release's
name. Exit codes: 0, 1 when a release failed (or the spec is wrong), and with
--detailed-exitcode 2 when anything changed (or, planning, would change).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, no_args
from runner.cli.pflag import FuncValue
from runner.errors import RunnerError

if TYPE_CHECKING:
    from collections.abc import Callable

    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Deploy the releases a spec describes (deploy-runner.yaml by default; a plain
helmfile.yaml is a spec too): the releases the event concerns, in the order their
`needs` give, independent ones at once. A release whose chart and values are those of
its deployed revision and whose diff against the cluster is empty gets no new
revision (use --sync to upgrade every release anyway). A failed release skips the
releases that need it.

With --plan nothing is written: each release's diff (every object dry-run applied on
the server and compared with its live copy) and what would be installed, upgraded or
uninstalled. See docs/spec.md for the spec, docs/run-json.md for --output json.
"""
OUTPUTS = ("text", "json", "markdown")
REPORTS = ("auto", "github", "none")
CHANGES_EXIT_CODE = 2


def build(_name: str) -> Command:
    return Command("run", "deploy the releases of a spec (deploy-runner.yaml)", long=LONG,
                   args=no_args, run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    spec_flags(fs)
    fs.string_array("release", "deploy only this release (NAME or NAMESPACE/NAME; can be repeated); "
                    "the releases it needs are not deployed with it")
    fs.bool("plan", "write nothing: show each release's diff and what would be installed, upgraded "
            "or uninstalled")
    fs.bool("sync", "upgrade every selected release, also those with nothing to change")
    fs.bool("detailed-exitcode", "exit with 2 when anything changed (with --plan: would change)")
    output_flag(fs)
    fs.int("concurrency", "how many independent releases deploy at once", default=4)
    diff_flags(fs)
    fs.duration("wait-for-lock", "how long to wait for another operation's lock on a release (0s: fail "
                "at once)", default="0s")
    report_flags(fs)


def _one_of(choices: tuple[str, ...], type_name: str, default: str) -> FuncValue:
    """A flag value that must be one of `choices`."""
    def parse(text: str, _current: Any) -> str:
        if text not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}")
        return text

    return FuncValue(type_name, default, parse, default)


def report_flags(fs: FlagSet) -> None:
    fs.add("report", _one_of(REPORTS, "string", "auto"),
           "where the result is reported: github (check runs, job summary, outputs: "
           "docs/github.md), none, or auto (github inside GitHub Actions)")
    fs.bool("comment", "with the GitHub report, on a pull request: one comment with the plan, "
            "edited on each push")


def spec_flags(fs: FlagSet) -> None:
    fs.string("spec", "the spec file (- for standard input); by default deploy-runner.yaml here, "
              "else at the repository's root", default="deploy-runner.yaml")
    fs.string("environment", "the spec's environment to deploy", default="default", short="e")


def output_flag(fs: FlagSet) -> None:
    fs.add("output", _one_of(OUTPUTS, "format", "text"),
           "how the result is printed: text, json (one JSON document) or markdown", short="o")


def diff_flags(fs: FlagSet) -> None:
    """How diffs are shown (run, and diff)."""
    fs.int("context", "lines of context around each change (-1: whole objects)", default=3, short="C")
    fs.add("view", _one_of(("live", "manifest"), "string", "live"),
           "live: objects dry-run applied and compared with the cluster's; manifest: the last "
           "stored manifest against the new one (as helm diff)")


def handle(args: Namespace) -> int:
    from runner.actions.diff import DiffOptions
    from runner.actions.run import RunOptions, run_spec
    from runner.report.run import markdown, text

    if args.concurrency < 1:
        raise RunnerError(f"--concurrency {args.concurrency}: must be at least 1")
    if args.plan and args.sync:
        raise RunnerError("--plan and --sync cannot be used together")
    from runner.actions.run import add_secret_values
    from runner.spec.errors import SpecError

    access = flags_access(args)
    try:
        spec, context = load(args, lambda eks: spec_namespace(access, eks))
    except SpecError as err:
        if _reports_to_github(args):  # the step's annotations point at the spec's lines
            from runner.report.github.entry import spec_problems

            spec_problems(err)
        raise
    base = connect(args, spec.cluster_access(access))
    options = RunOptions(plan=args.plan, sync=args.sync, concurrency=args.concurrency,
                         releases=list(args.release), wait_for_lock=args.wait_for_lock,
                         diff=DiffOptions(context=args.context, view=args.view))
    add_secret_values(options.redactor, spec.releases)
    redact = options.redactor.redact
    if _reports_to_github(args):
        # its masks come before any line; the spec's warnings become ::warning lines
        from runner.report.github.entry import GitHubRun

        return GitHubRun(spec, context, base, options,
                         on_message=release_messages(redact, debug=bool(args.debug)),
                         comment=args.comment, environment="" if args.environment == "default"
                         else args.environment, detailed_exitcode=args.detailed_exitcode).run()
    for warning in spec.warnings:
        print(f"warning: {redact(warning)}", file=sys.stderr)
    with options.redactor.hiding_errors():  # a run that stops: its error shows no secret
        result = run_spec(spec, context, base.in_namespace, options,
                          on_message=release_messages(redact, debug=bool(args.debug)))
    data = options.redactor.redact_data(result.to_json())
    if args.output == "json":
        import json

        sys.stdout.write(json.dumps(data, indent=2) + "\n")
    else:
        sys.stdout.write(markdown(data) if args.output == "markdown" else text(data))
    if result.failed:
        return 1
    return CHANGES_EXIT_CODE if args.detailed_exitcode and result.changed else 0


def release_messages(redact: Callable[[str], str], *, debug: bool) -> Callable[[str, Any], None]:
    """What each release's action tells, on stderr, each line named by its release: Helm's
    debug lines only with --debug; of a wait's progress, its start, changes and end (a
    line each, as several releases may wait at once), not every second's tick."""
    from runner.actions.results import DEBUG, WAIT

    def tell(release: str, message: Any) -> None:
        if (message.kind == DEBUG and not debug) or (message.kind == WAIT and message.data.stage == "tick"):
            return
        print(f"{release}: {redact(message.text)}", file=sys.stderr, flush=True)

    return tell


def _reports_to_github(args: Namespace) -> bool:
    import os

    return args.report == "github" or (args.report == "auto"
                                       and os.environ.get("GITHUB_ACTIONS") == "true")


def flags_access(args: Namespace) -> Any:
    """The cluster settings of the command line (runner.kube's ClusterAccess)."""
    from runner.cli.cluster import cluster_access
    from runner.kube.kubeconfig import ClusterAccess

    return ClusterAccess(**cluster_access(args))


def spec_namespace(access: Any, eks: Any) -> str:
    """The namespace of releases that name none: -n, else that of the cluster the run
    works on (the kubeconfig context's; on the environment's EKS cluster, default)."""
    from runner.kube.kubeconfig import default_namespace
    from runner.spec.load import environment_access

    return default_namespace(environment_access(access, eks))


def connect(args: Namespace, access: Any = None) -> Any:
    """The action configuration of the flags' namespace (releases get their own from it),
    on the cluster of `access` (default: the flags'). No journal hears its cluster: each
    release of the run has its own (runner.actions.run)."""
    from runner.cli.cluster import action_config

    return action_config(args, None, access)


def load(args: Namespace, default_namespace: Any) -> tuple[Any, Any]:
    """The spec of --spec for --environment, and the run's context (event or checkout)."""
    import os

    from runner.spec.context import local_context
    from runner.spec.load import load_spec, spec_path

    path = spec_path(args.spec)
    directory = "." if path == "-" else os.path.dirname(os.path.abspath(path))
    context = local_context(args.environment, directory)
    return load_spec(path, environment=args.environment, context=context,
                     default_namespace=default_namespace), context

