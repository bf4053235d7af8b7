"""The release commands that change a cluster: install, upgrade, rollback, uninstall, test.
Helm's flags (pkg/cmd/install.go, upgrade.go, rollback.go, uninstall.go,
release_testing.go) and Helm's printing; `-o json|yaml` of install and upgrade
prints Helm's release object (runner.cli.printers)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cluster import action_config, command_journal
from runner.cli.cobra import Command, exact_args, minimum_args
from runner.cli.flags import (
    DRY_RUN_USAGE,
    dry_run_flag,
    dry_run_strategy,
    history_flags,
    output_flag,
    print_said,
    render_options,
    source_options,
    timeout_flag,
    value_options,
    values_flags,
    wait_flag,
)
from runner.cli.printers import encode_data, print_result, result_json, status_text
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

INSTALL_LONG = """
This command installs a chart archive.

The install argument must be a chart reference, a path to a packaged chart,
a path to an unpacked chart directory or a URL.

To override values in a chart, use either the '--values' flag and pass in a file
or use the '--set' flag and pass configuration from the command line.
"""
UPGRADE_LONG = """
This command upgrades a release to a new version of a chart.

The upgrade arguments must be a release and chart. The chart argument can be
either: a chart reference('example/mariadb'), a path to a chart directory, a
packaged chart, or a fully qualified URL.
"""
ROLLBACK_LONG = """
This command rolls back a release to a previous revision.

The first argument of the rollback command is the name of a release, and the
second is a revision (version) number. If this argument is omitted or set to
0, it will roll back to the previous release.
"""
UNINSTALL_LONG = """
This command takes a release name and uninstalls the release.

It removes all of the resources associated with the last release of the chart
as well as the release history, freeing it up for future use.

Use the '--dry-run' flag to see which releases will be uninstalled without actually
uninstalling them.
"""
TEST_LONG = """
The test command runs the tests for a release.

The argument this command takes is the name of a deployed release.
The tests to be run are defined in the chart that was installed.
"""


def build(name: str) -> Command:
    if name == "install":
        return Command("install [NAME] [CHART]", "install a chart", long=INSTALL_LONG,
                       args=minimum_args(1), run=install, flags=_install_flags)
    if name == "upgrade":
        return Command("upgrade [RELEASE] [CHART]", "upgrade a release", long=UPGRADE_LONG,
                       args=exact_args(2), run=upgrade, flags=upgrade_flags)
    if name == "rollback":
        return Command("rollback <RELEASE> [REVISION]", "roll back a release to a previous revision",
                       long=ROLLBACK_LONG, args=minimum_args(1), run=rollback, flags=_rollback_flags)
    if name == "uninstall":
        return Command("uninstall RELEASE_NAME [...]", "uninstall a release", long=UNINSTALL_LONG,
                       aliases=("del", "delete", "un"), args=minimum_args(1), run=uninstall,
                       flags=_uninstall_flags)
    return Command("test [RELEASE]", "run tests for a release", long=TEST_LONG, args=exact_args(1),
                   run=test, flags=_test_flags)


# ------------------------------------------------------------------------ flags


def _progress_flag(fs: FlagSet) -> None:
    """deploy-runner's own: Helm shows nothing while it waits, and has no switch for it."""
    fs.bool("no-progress", "do not show what a wait is waiting for (shown on stderr: redrawn in place on a "
            "terminal, a line per change otherwise; never with -o json or yaml)")


def _lock_flag(fs: FlagSet) -> None:
    """deploy-runner's own: how long to wait for another run's release lock."""
    fs.duration("wait-for-lock", "how long to wait for another operation's lock on the release (0s: fail "
                "at once)", default="0s")


def _hook_log_flags(fs: FlagSet) -> None:
    """The hook output log proposal's --no-log-output, and our cap (runner.actions.hook_logs)."""
    fs.bool("no-log-output", "skip the output of the logs of hooks that ask for it with the "
            "helm.sh/hook-output-log-policy annotation")
    fs.int("hook-log-lines", "how many of the last lines of each hook container's log to show (0: all); "
           "the cut is marked with the number of lines dropped", default=500)


def _install_flags(fs: FlagSet) -> None:
    from runner.cli.template import install_flags

    install_flags(fs)
    dry_run_flag(fs, DRY_RUN_USAGE)
    fs.bool("hide-secret", "hide Kubernetes Secrets when also using the --dry-run flag")
    output_flag(fs)
    _lock_flag(fs)
    _progress_flag(fs)
    _hook_log_flags(fs)


def upgrade_flags(fs: FlagSet) -> None:
    from runner.cli.flags import chart_path_flags, post_renderer_flags

    fs.bool("install", "if a release by this name doesn't already exist, run an install", short="i")
    fs.bool("create-namespace", "if --install is set, create the release namespace if not present")
    dry_run_flag(fs, DRY_RUN_USAGE)
    fs.bool("hide-secret", "hide Kubernetes Secrets when also using the --dry-run flag")
    fs.bool("force-replace", "force resource updates by replacement")
    fs.bool("force", "deprecated", dest="force_replace", hidden=True, deprecated="use --force-replace instead")
    fs.bool("disable-openapi-validation", "if set, the upgrade process will not validate rendered templates "
            "against the Kubernetes OpenAPI Schema")
    fs.bool("skip-crds", "if set, no CRDs will be installed when an upgrade is performed with install flag "
            "enabled. By default, CRDs are installed if not already present, when an upgrade is performed "
            "with install flag enabled")
    fs.bool("no-hooks", "disable pre/post upgrade hooks")
    timeout_flag(fs)
    fs.bool("reset-values", "when upgrading, reset the values to the ones built into the chart")
    fs.bool("reuse-values", "when upgrading, reuse the last release's values and merge in any overrides from "
            "the command line via --set and -f. If '--reset-values' is specified, this is ignored")
    fs.bool("reset-then-reuse-values", "when upgrading, reset the values to the ones built into the chart, "
            "apply the last release's values and merge in any overrides from the command line via --set and "
            "-f. If '--reset-values' or '--reuse-values' is specified, this is ignored")
    wait_flag(fs)
    fs.bool("wait-for-jobs", "if set and --wait enabled, will wait until all Jobs have been completed before "
            "marking the release as successful. It will wait for as long as --timeout")
    fs.bool("rollback-on-failure", "if set, Helm will rollback the upgrade to previous success release upon "
            'failure. The --wait flag will be defaulted to "watcher" if --rollback-on-failure is set')
    fs.bool("atomic", "deprecated", dest="rollback_on_failure", hidden=True,
            deprecated="use --rollback-on-failure instead")
    fs.int("history-max", "limit the maximum number of revisions saved per release. Use 0 for no limit",
           default=_history_max_default())
    fs.bool("cleanup-on-fail", "allow deletion of new resources created in this upgrade when upgrade fails")
    fs.bool("render-subchart-notes", "if set, render subchart notes along with the parent")
    fs.string("description", "add a custom description")
    fs.bool("dependency-update", "update dependencies if they are missing before installing the chart")
    fs.bool("skip-schema-validation", "if set, disables JSON schema validation")
    fs.bool("take-ownership", "if set, upgrade will ignore the check for helm annotations and take ownership "
            "of the existing resources")
    fs.string("server-side", 'must be "true", "false" or "auto". Object updates run in the server instead '
              "of the client (\"auto\" defaults the value from the previous chart release's method)",
              default="auto")
    fs.bool("force-conflicts", "if set server-side apply will force changes against conflicts")
    fs.bool("hide-notes", "if set, do not show notes in upgrade output. Does not affect presence in chart "
            "metadata")
    fs.string_to_string("labels", "Labels that would be added to release metadata. Should be separated by "
                        "comma. Original release labels will be merged with upgrade labels. You can unset "
                        "label using null.", short="l")
    values_flags(fs)
    chart_path_flags(fs)
    post_renderer_flags(fs)
    output_flag(fs)
    history_flags(fs)
    _lock_flag(fs)
    _progress_flag(fs)
    _hook_log_flags(fs)


def _rollback_flags(fs: FlagSet) -> None:
    fs.string("server-side", 'must be "true", "false" or "auto". Object updates run in the server instead '
              "of the client (\"auto\" defaults the value from the previous chart release's method)",
              default="auto")
    fs.bool("force-conflicts", "if set server-side apply will force changes against conflicts")
    dry_run_flag(fs, DRY_RUN_USAGE)
    fs.bool("no-hooks", "prevent hooks from running during rollback")
    timeout_flag(fs)
    wait_flag(fs)
    fs.bool("wait-for-jobs", "if set and --wait enabled, will wait until all Jobs have been completed before "
            "marking the release as successful. It will wait for as long as --timeout")
    fs.bool("cleanup-on-fail", "allow deletion of new resources created in this rollback when rollback fails")
    fs.int("history-max", "limit the maximum number of revisions saved per release. Use 0 for no limit",
           default=_history_max_default())
    output_flag(fs)
    history_flags(fs)
    _lock_flag(fs)
    _progress_flag(fs)
    _hook_log_flags(fs)


def _uninstall_flags(fs: FlagSet) -> None:
    fs.bool("dry-run", "simulate a uninstall")
    fs.bool("no-hooks", "prevent hooks from running during uninstallation")
    fs.bool("ignore-not-found", 'Treat "release not found" as a successful uninstall')
    fs.bool("keep-history", "remove all associated resources and mark the release as deleted, but retain "
            "the release history")
    wait_flag(fs)
    fs.string("cascade", 'Must be "background", "orphan", or "foreground". Selects the deletion cascading '
              "strategy for the dependents. Defaults to background.", default="background")
    timeout_flag(fs)
    fs.string("description", "add a custom description")
    _lock_flag(fs)
    _progress_flag(fs)
    _hook_log_flags(fs)


def _test_flags(fs: FlagSet) -> None:
    timeout_flag(fs)
    fs.bool("logs", "dump the logs from test pods (this runs after all tests are complete, but before any "
            "cleanup)")
    fs.string_slice("filter", "specify tests by attribute (currently \"name\") using attribute=value syntax or "
                    "'!attribute=value' to exclude a test (can specify multiple or separate values with "
                    "commas: name=test1,name=test2)")
    output_flag(fs)
    fs.bool("hide-notes", "if set, do not show notes in test output. Does not affect presence in chart metadata")
    _progress_flag(fs)
    _hook_log_flags(fs)


def _history_max_default() -> int:
    text = os.environ.get("HELM_MAX_HISTORY", "")
    return int(text) if text.isdigit() else 10


# --------------------------------------------------------------------- handlers


def deploy_request(args: Namespace, name: str, chart: str, server_side: str, dry_run: str, *,
                   install: Any = None, upgrade: Any = None) -> Any:
    """The request of install, upgrade or diff (runner.actions.prepare.DeployRequest): the
    flags they share, and `install`'s or `upgrade`'s own (InstallOptions, UpgradeOptions)."""
    from runner.actions.prepare import DeployRequest, InstallOptions, UpgradeOptions

    return DeployRequest(
        name=name, chart=chart, source=source_options(args), dependency_update=args.dependency_update,
        values=value_options(args), render=render_options(args),
        install=install or InstallOptions(), upgrade=upgrade or UpgradeOptions(),
        dry_run=dry_run, wait=_waits(args.wait),
        wait_strategy=_strategy(args.wait), timeout=args.timeout,
        wait_for_lock=args.wait_for_lock, labels=args.labels,
        server_side=server_side, force_conflicts=args.force_conflicts,
        hide_secret=args.hide_secret, take_ownership=args.take_ownership,
        create_namespace=args.create_namespace, skip_crds=args.skip_crds, no_hooks=args.no_hooks,
        wait_for_jobs=args.wait_for_jobs, rollback_on_failure=args.rollback_on_failure,
        description=args.description, disable_openapi_validation=args.disable_openapi_validation)


def install(args: Namespace) -> int:
    from runner.actions.install import install
    from runner.actions.prepare import InstallOptions, chart_input
    from runner.cli.template import name_and_chart

    dry_run = _dry(dry_run_strategy(args.dry_run))  # a bad value is not an install failure

    def run() -> Any:  # runInstall: its errors read "INSTALLATION FAILED: ..."
        if args.debug:  # runInstall's first line
            from runner.golang.slog import text_line

            print(text_line("DEBUG", "Original chart version", {"version": args.chart_version}), file=sys.stderr)
        name, chart = name_and_chart(args.args, args.generate_name)
        request = deploy_request(args, name, chart, "true" if args.server_side else "false", dry_run,
                                 install=InstallOptions(generate_name=args.generate_name, replace=args.replace))
        given = chart_input(request, print_said)  # before connecting, as Helm's runInstall
        return install(*_connected(args), request, given)

    result = _failing("INSTALLATION FAILED", run)
    print_result(result, args.output, hide_notes=args.hide_notes, debug=args.debug)
    return 0


def upgrade(args: Namespace) -> int:
    from runner.actions.prepare import UpgradeOptions, chart_input
    from runner.actions.upgrade import upgrade

    name, chart = args.args
    request = deploy_request(args, name, chart, args.server_side, _dry(dry_run_strategy(args.dry_run)),
                             upgrade=UpgradeOptions(
                                 install=args.install, reuse_values=args.reuse_values,
                                 reset_values=args.reset_values, reset_then_reuse_values=args.reset_then_reuse_values,
                                 cleanup_on_fail=args.cleanup_on_fail, history_max=args.history_max,
                                 force_replace=args.force_replace))
    given = chart_input(request, print_said)  # its errors are not an upgrade's failure (Helm's order)
    result = _failing("UPGRADE FAILED", lambda: upgrade(*_connected(args), request, given))
    if args.output == "table":
        if result.release.version == 1:
            print(f'Release "{name}" does not exist. Installing it now.')
        else:
            print(f'Release "{name}" has been upgraded. Happy Helming!')
    print_result(result, args.output, hide_notes=args.hide_notes, debug=args.debug)
    return 0


def rollback(args: Namespace) -> int:
    from runner.actions.rollback import RollbackOptions, rollback
    from runner.actions.template import RenderOptions

    revision = 0
    if len(args.args) > 1:
        from runner.golang.strconv import NumError, atoi

        try:
            revision = atoi(args.args[1])
        except NumError as err:
            raise RunnerError(f"could not convert revision to a number: {err}") from None
    opts = RollbackOptions(
        name=args.args[0], revision=revision, server_side=args.server_side,
        force_conflicts=args.force_conflicts, cleanup_on_fail=args.cleanup_on_fail,
        history_max=args.history_max, dry_run=_dry(dry_run_strategy(args.dry_run)),
        wait=_waits(args.wait), wait_strategy=_strategy(args.wait), wait_for_jobs=args.wait_for_jobs,
        timeout=args.timeout, no_hooks=args.no_hooks, wait_for_lock=args.wait_for_lock,
        render=RenderOptions(release_history_max=args.release_history_max,
                             include_history_values=args.include_history_values))
    result = rollback(*_connected(args), opts)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.output == "json":
        sys.stdout.write(encode_data(result_json(result), "json"))
    else:
        print("Rollback was a success! Happy Helming!")
    return 0


def uninstall(args: Namespace) -> int:
    from runner.actions.uninstall import UninstallOptions, uninstall
    from runner.kube.operations import CASCADE_POLICIES

    if args.cascade not in CASCADE_POLICIES:  # pkg/cmd's validateCascadeFlag: before any cluster access
        raise RunnerError(f'invalid cascade value ({args.cascade}). Must be "background", "foreground", '
                          'or "orphan"')
    cfg, journal = _connected(args, output="table")
    for name in args.args:
        opts = UninstallOptions(
            name=name, keep_history=args.keep_history, cascade=args.cascade,
            no_hooks=args.no_hooks, dry_run=args.dry_run, wait=_waits(args.wait),
            wait_strategy=_strategy(args.wait), timeout=args.timeout, ignore_not_found=args.ignore_not_found,
            description=args.description, wait_for_lock=args.wait_for_lock)
        result = uninstall(cfg, journal, opts)
        if result is not None and result.info:
            print(result.info)
        print(f'release "{name}" uninstalled')
    return 0


def test(args: Namespace) -> int:
    import re

    from runner.actions.release_test import TestOptions, pod_logs, run_tests

    opts = TestOptions(name=args.args[0], timeout=args.timeout)
    for item in args.filter:
        if item.startswith("name="):
            opts.include.append(item[len("name="):])
        elif re.match(r"^!\s?name=", item):
            opts.exclude.append(re.sub(r"^!\s?name=", "", item, count=1))
    cfg, journal = _connected(args)
    run = run_tests(cfg, journal, opts)
    if args.hide_notes:
        run.release.info.notes = ""
    if args.output == "table":
        sys.stdout.write(status_text(run.release))
    else:
        sys.stdout.write(encode_data(run.release.to_json(), args.output))
    if args.logs:
        print()
        sys.stdout.write(pod_logs(cfg, journal, run.release, opts))
    if run.error is not None:
        raise run.error
    return 0


# ---------------------------------------------------------------- flag values


def _connected(args: Namespace, output: str | None = None) -> tuple[Any, Any]:
    """The action configuration and the command's journal, with hook output logs going
    where the proposal puts them: standard output, in the command's own flow; standard
    error when that output is a document (-o json|yaml), so it stays parseable; nowhere
    with --no-log-output."""
    if args.hook_log_lines < 0:
        raise RunnerError(f"invalid --hook-log-lines {args.hook_log_lines}: must be 0 (all lines) or more")
    to_stderr = (output or args.output) in ("json", "yaml")

    def writer(namespace: str, pod: str, container: str) -> Any:
        return sys.stderr if to_stderr else sys.stdout  # looked up when written: tests redirect them

    shown = not args.no_log_output
    journal = command_journal(args, hook_output=writer if shown else None, hook_log_lines=args.hook_log_lines,
                              live_hook_logs=shown and (sys.stderr if to_stderr else sys.stdout).isatty())
    return action_config(args, journal), journal


def _failing(prefix: str, work: Any) -> Any:
    """Helm's CLI prefix for install/upgrade failures (the error's details follow it)."""
    try:
        return work()
    except RunnerError as err:
        wrapped = RunnerError(f"{prefix}: {err}")
        wrapped.details = err.details
        raise wrapped from err


def _waits(value: str) -> bool:
    """--wait[=watcher|legacy|hookOnly]: hookOnly (Helm's default) waits for hooks only."""
    return value != "hookOnly"


def _strategy(value: str) -> str:
    """The waiter used when waiting: legacy polling, or kstatus (also when
    --rollback-on-failure raises hookOnly to watcher)."""
    return "legacy" if value == "legacy" else "watcher"


def _dry(strategy: str) -> str:
    """The actions' dry_run: "" (none), "client" or "server"."""
    return "" if strategy == "none" else strategy
