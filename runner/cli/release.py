"""Subcommands install, upgrade, rollback, uninstall, status, history, get, test:
Helm's flag names, Helm-like output, and a --output json of the result. The
read-only commands' handlers are in runner.cli.release_info."""

from __future__ import annotations

import argparse
import sys

from runner.cli import release_info
from runner.cli.cluster import action_config
from runner.cli.flags import duration
from runner.cli.printers import encode_data, print_result, result_json, status_text
from runner.errors import RunnerError, UsageError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

_SET_FLAGS = ("set", "set-string", "set-file", "set-json", "set-literal")


def register(subparsers: Any) -> None:
    _install_parser(subparsers)
    _upgrade_parser(subparsers)
    _rollback_parser(subparsers)
    _uninstall_parser(subparsers)
    status = subparsers.add_parser("status", help="show the status of a named release")
    status.add_argument("name")
    status.add_argument("--revision", type=int, default=0)
    _common(status)
    status.set_defaults(handler=release_info.status)
    hist = subparsers.add_parser("history", help="fetch release history")
    hist.add_argument("name")
    hist.add_argument("--max", type=int, default=256)
    _common(hist)
    hist.set_defaults(handler=release_info.history)
    get = subparsers.add_parser("get", help="download extended information of a named release")
    get.add_argument("what", choices=("all", "values", "manifest", "notes", "hooks", "metadata"))
    get.add_argument("name")
    get.add_argument("--revision", type=int, default=0)
    get.add_argument("-a", "--all", action="store_true", dest="all_values")
    get.add_argument("--template", default="")
    _common(get)
    get.set_defaults(handler=release_info.get)
    _test_parser(subparsers)


def _test_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("test", help="run tests for a release")
    parser.add_argument("name")
    _common(parser)
    parser.add_argument("--timeout", default="5m0s", type=duration("--timeout"))
    parser.add_argument("--logs", action="store_true")
    parser.add_argument("--filter", action="append", default=[])
    parser.add_argument("--hide-notes", action="store_true")
    parser.set_defaults(handler=_test)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--namespace", default=None)
    parser.add_argument("--kubeconfig", default=None)
    parser.add_argument("--kube-context", default=None)
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")


def _write_flags(parser: argparse.ArgumentParser) -> None:
    from runner.cli.flags import add_post_renderer_flags, add_values_flag

    _common(parser)
    add_values_flag(parser)
    add_post_renderer_flags(parser)
    for flag in _SET_FLAGS:
        parser.add_argument(f"--{flag}", action="append", default=[], dest=flag.replace("-", "_"))
    parser.add_argument("--dry-run", nargs="?", const="client", default="",
                        choices=("", "client", "server", "none"))
    parser.add_argument("--force-conflicts", action="store_true")
    parser.add_argument("--take-ownership", action="store_true")
    parser.add_argument("--wait", nargs="?", const="watcher", default="")
    parser.add_argument("--wait-for-jobs", action="store_true")
    parser.add_argument("--timeout", default="5m0s", type=duration("--timeout"))
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--description", default="")
    parser.add_argument("--create-namespace", action="store_true")
    parser.add_argument("--skip-schema-validation", action="store_true")
    parser.add_argument("--disable-openapi-validation", action="store_true")
    parser.add_argument("--render-subchart-notes", action="store_true")
    parser.add_argument("--release-history-max", "--deployed-depth", type=int, default=0,
                        dest="release_history_max")
    parser.add_argument("--include-history-values", action="store_true")
    parser.add_argument("--wait-for-lock", default="0s", type=duration("--wait-for-lock"))
    parser.add_argument("--rollback-on-failure", "--atomic", action="store_true",
                        dest="rollback_on_failure")
    parser.add_argument("--hide-secret", action="store_true")
    parser.add_argument("--labels", action="append", default=[],
                        help="labels added to the release record (key=value,...)")


def _install_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("install", help="install a chart")
    parser.add_argument("args", nargs="+", metavar="[NAME] CHART")
    _write_flags(parser)
    parser.add_argument("-g", "--generate-name", action="store_true")
    parser.add_argument("--server-side", default="true", choices=("true", "false"))
    parser.add_argument("--replace", action="store_true")
    parser.add_argument("--skip-crds", action="store_true")
    _chart_source_flags(parser)
    parser.set_defaults(handler=_install)


def _upgrade_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("upgrade", help="upgrade a release")
    parser.add_argument("name")
    parser.add_argument("chart")
    _write_flags(parser)
    parser.add_argument("-i", "--install", action="store_true")
    parser.add_argument("--reuse-values", action="store_true")
    parser.add_argument("--reset-values", action="store_true")
    parser.add_argument("--reset-then-reuse-values", action="store_true")
    parser.add_argument("--server-side", default="auto", choices=("true", "false", "auto"))
    parser.add_argument("--cleanup-on-fail", action="store_true")
    parser.add_argument("--history-max", type=int, default=_history_max_default())
    parser.add_argument("--force-replace", "--force", action="store_true", dest="force_replace")
    parser.add_argument("--skip-crds", action="store_true")
    _chart_source_flags(parser)
    parser.set_defaults(handler=_upgrade)


def _rollback_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("rollback", help="roll back a release to a previous revision")
    parser.add_argument("name")
    parser.add_argument("revision", nargs="?", type=int, default=0)
    _common(parser)
    parser.add_argument("--server-side", default="auto", choices=("true", "false", "auto"))
    parser.add_argument("--force-conflicts", action="store_true")
    parser.add_argument("--cleanup-on-fail", action="store_true")
    parser.add_argument("--history-max", type=int, default=_history_max_default())
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--wait", nargs="?", const="watcher", default="")
    parser.add_argument("--wait-for-jobs", action="store_true")
    parser.add_argument("--timeout", default="5m0s", type=duration("--timeout"))
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--wait-for-lock", default="0s", type=duration("--wait-for-lock"))
    parser.set_defaults(handler=_rollback)


def _uninstall_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("uninstall", aliases=["delete", "del", "un"],
                                   help="uninstall a release")
    parser.add_argument("names", nargs="+")
    _common(parser)
    parser.add_argument("--keep-history", action="store_true")
    parser.add_argument("--cascade", default="background")
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--ignore-not-found", action="store_true")
    parser.add_argument("--wait", nargs="?", const="watcher", default="")
    parser.add_argument("--timeout", default="5m0s", type=duration("--timeout"))
    parser.add_argument("--description", default="")
    parser.add_argument("--wait-for-lock", default="0s", type=duration("--wait-for-lock"))
    parser.set_defaults(handler=_uninstall)


def _chart_source_flags(parser: argparse.ArgumentParser) -> None:
    """--version, --repo, credentials (runner.chart.sources) and --dependency-update."""
    from runner.cli.flags import add_source_flags

    add_source_flags(parser)
    parser.add_argument("--dependency-update", action="store_true")


def _chart_path(args: argparse.Namespace, chart: str) -> str:
    """LocateChart (local, repository, OCI), then --dependency-update for a chart directory."""
    import os
    from pathlib import Path

    from runner.actions.pull import source_options
    from runner.actions.template import locate_chart

    path = locate_chart(chart, args)
    if args.dependency_update and os.path.isdir(path):
        from runner.chart.sources.dependency import Manager
        from runner.chart.sources.paths import HelmPaths

        Manager(Path(path), source_options(args), HelmPaths.from_env(), skip_refresh=False).update()
    return path


def _history_max_default() -> int:
    import os

    text = os.environ.get("HELM_MAX_HISTORY", "")
    return int(text) if text.isdigit() else 10


# -- handlers --------------------------------------------------------------------


def _values(args: argparse.Namespace) -> dict[str, Any]:
    from runner import engine

    sets = {flag: getattr(args, flag.replace("-", "_")) for flag in _SET_FLAGS}
    return engine.merge_user_values(args.values_files, sets)


def _install(args: argparse.Namespace) -> int:
    from runner.actions.install import InstallOptions, install
    from runner.cli.flags import post_renderer

    if len(args.args) > 2:
        raise UsageError(f"expected at most two arguments, unexpected arguments: {' '.join(args.args[2:])}")
    if args.generate_name:
        if len(args.args) != 1:
            raise UsageError("expected 1 argument with --generate-name")
        name, chart = "", args.args[0]
    elif len(args.args) != 2:
        raise UsageError("must either provide a name or specify --generate-name")
    else:
        name, chart = args.args
    opts = InstallOptions(
        name=name, chart=_chart_path(args, chart), values=_values(args), create_namespace=args.create_namespace,
        generate_name=args.generate_name, server_side=args.server_side == "true",
        force_conflicts=args.force_conflicts, dry_run=_dry(args.dry_run),
        take_ownership=args.take_ownership, replace=args.replace, wait=_waits(args.wait),
        wait_strategy=_strategy(args.wait), wait_for_jobs=args.wait_for_jobs,
        skip_schema_validation=args.skip_schema_validation,
        render_subchart_notes=args.render_subchart_notes,
        timeout=args.timeout, no_hooks=args.no_hooks, skip_crds=args.skip_crds,
        description=args.description, release_history_max=args.release_history_max,
        include_history_values=args.include_history_values,
        wait_for_lock=args.wait_for_lock,
        rollback_on_failure=args.rollback_on_failure, hide_secret=args.hide_secret,
        labels=_labels(args.labels), post_renderer=post_renderer(args))
    result = _failing("INSTALLATION FAILED", lambda: install(action_config(args), opts))
    print_result(result, args.output)
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    from runner.actions.upgrade import UpgradeOptions, upgrade
    from runner.cli.flags import post_renderer

    opts = UpgradeOptions(
        name=args.name, chart=_chart_path(args, args.chart), values=_values(args), install=args.install,
        reuse_values=args.reuse_values, reset_values=args.reset_values,
        reset_then_reuse_values=args.reset_then_reuse_values, server_side=args.server_side,
        force_conflicts=args.force_conflicts, cleanup_on_fail=args.cleanup_on_fail,
        history_max=args.history_max, dry_run=_dry(args.dry_run),
        take_ownership=args.take_ownership, wait=_waits(args.wait),
        wait_strategy=_strategy(args.wait), wait_for_jobs=args.wait_for_jobs,
        skip_schema_validation=args.skip_schema_validation,
        render_subchart_notes=args.render_subchart_notes, skip_crds=args.skip_crds,
        timeout=args.timeout, no_hooks=args.no_hooks,
        description=args.description, create_namespace=args.create_namespace,
        release_history_max=args.release_history_max,
        include_history_values=args.include_history_values,
        wait_for_lock=args.wait_for_lock,
        rollback_on_failure=args.rollback_on_failure, hide_secret=args.hide_secret,
        force_replace=args.force_replace, labels=_labels(args.labels),
        post_renderer=post_renderer(args))
    result = _failing("UPGRADE FAILED", lambda: upgrade(action_config(args), opts))
    if args.output == "table":
        if result.release.version == 1:
            print(f'Release "{args.name}" does not exist. Installing it now.')
        else:
            print(f'Release "{args.name}" has been upgraded. Happy Helming!')
    print_result(result, args.output)
    return 0


def _rollback(args: argparse.Namespace) -> int:
    from runner.actions.rollback import RollbackOptions, rollback

    opts = RollbackOptions(
        name=args.name, revision=args.revision, server_side=args.server_side,
        force_conflicts=args.force_conflicts, cleanup_on_fail=args.cleanup_on_fail,
        history_max=args.history_max, dry_run=args.dry_run, wait=_waits(args.wait),
        wait_strategy=_strategy(args.wait), wait_for_jobs=args.wait_for_jobs,
        timeout=args.timeout, no_hooks=args.no_hooks,
        wait_for_lock=args.wait_for_lock)
    result = rollback(action_config(args), opts)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.output == "json":
        sys.stdout.write(encode_data(result_json(result), "json"))
    else:
        print("Rollback was a success! Happy Helming!")
    return 0


def _uninstall(args: argparse.Namespace) -> int:
    from runner.actions.uninstall import UninstallOptions, uninstall

    cfg = action_config(args)
    for name in args.names:
        opts = UninstallOptions(
            name=name, keep_history=args.keep_history, cascade=args.cascade,
            no_hooks=args.no_hooks, dry_run=args.dry_run, wait=_waits(args.wait),
            timeout=args.timeout, ignore_not_found=args.ignore_not_found,
            description=args.description, wait_for_lock=args.wait_for_lock)
        result = uninstall(cfg, opts)
        if result is not None and result.info:
            print(result.info)
        print(f'release "{name}" uninstalled')
    return 0


def _test(args: argparse.Namespace) -> int:
    import re

    from runner.actions.release_test import TestOptions, pod_logs, run_tests

    opts = TestOptions(name=args.name, timeout=args.timeout)
    for text in args.filter:
        for item in text.split(","):
            if item.startswith("name="):
                opts.include.append(item[len("name="):])
            elif re.match(r"^!\s?name=", item):
                opts.exclude.append(re.sub(r"^!\s?name=", "", item, count=1))
    cfg = action_config(args)
    run = run_tests(cfg, opts)
    if args.hide_notes:
        run.release.info.notes = ""
    if args.output == "table":
        sys.stdout.write(status_text(run.release))
    else:
        sys.stdout.write(encode_data(run.release.to_json(), args.output))
    if args.logs:
        print()
        sys.stdout.write(pod_logs(cfg, run.release, opts))
    if run.error is not None:
        raise run.error
    return 0


# -- flag values -------------------------------------------------------------------


def _failing(prefix: str, work: Any) -> Any:
    """Helm's CLI prefix for install/upgrade failures."""
    try:
        return work()
    except RunnerError as err:
        raise RunnerError(f"{prefix}: {err}") from err


def _waits(value: str) -> bool:
    """--wait[=watcher|legacy|hookOnly]: hookOnly (Helm's default) waits for hooks only."""
    if value not in ("", "watcher", "legacy", "hookOnly", "true", "false"):
        raise UsageError(f'invalid wait strategy "{value}": use watcher, legacy or hookOnly')
    return value not in ("", "hookOnly", "false")


def _strategy(value: str) -> str:
    """The waiter used when waiting: legacy polling, or kstatus (also when
    --rollback-on-failure raises hookOnly to watcher)."""
    return "legacy" if value == "legacy" else "watcher"


def _labels(values: list[str]) -> dict[str, str]:
    """pflag's stringToString: key=value pairs separated by commas, repeatable."""
    labels: dict[str, str] = {}
    for text in values:
        for pair in filter(None, text.split(",")):
            key, sep, value = pair.partition("=")
            if not sep:
                raise UsageError(f'invalid argument "{text}" for "--labels" flag: {pair} must be formatted as key=value')
            labels[key] = value
    return labels


def _dry(value: str) -> str:
    return "" if value in ("", "none") else value
