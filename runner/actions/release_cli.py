"""Subcommands install, upgrade, rollback, uninstall, status, history, get:
Helm's flag names, Helm-like output, and a --output json of the result."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from datetime import datetime

from runner.actions.output import encode_data
from runner.errors import RunnerError, UsageError, internal_error

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
    status.set_defaults(handler=_guarded(_status))
    hist = subparsers.add_parser("history", help="fetch release history")
    hist.add_argument("name")
    hist.add_argument("--max", type=int, default=256)
    _common(hist)
    hist.set_defaults(handler=_guarded(_history))
    get = subparsers.add_parser("get", help="download extended information of a named release")
    get.add_argument("what", choices=("all", "values", "manifest", "notes", "hooks", "metadata"))
    get.add_argument("name")
    get.add_argument("--revision", type=int, default=0)
    get.add_argument("-a", "--all", action="store_true", dest="all_values")
    get.add_argument("--template", default="")
    _common(get)
    get.set_defaults(handler=_guarded(_get))
    _test_parser(subparsers)


def _test_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("test", help="run tests for a release")
    parser.add_argument("name")
    _common(parser)
    parser.add_argument("--timeout", default="5m0s")
    parser.add_argument("--logs", action="store_true")
    parser.add_argument("--filter", action="append", default=[])
    parser.add_argument("--hide-notes", action="store_true")
    parser.set_defaults(handler=_guarded(_test))


def _guarded(handler: Any) -> Any:
    """A bug of ours reads as one line (internal error: ...); the traceback only with --debug."""
    def run(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except (RunnerError, KeyboardInterrupt):
            raise
        except Exception as err:
            if getattr(args, "debug", False):
                raise
            raise internal_error(err) from err
    return run


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", "--namespace", default=None)
    parser.add_argument("--kubeconfig", default=None)
    parser.add_argument("--kube-context", default=None)
    parser.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")


def _write_flags(parser: argparse.ArgumentParser) -> None:
    from runner.actions.flags import add_values_flag
    from runner.actions.postrender import add_post_renderer_flags

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
    parser.add_argument("--timeout", default="5m0s")
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--description", default="")
    parser.add_argument("--create-namespace", action="store_true")
    parser.add_argument("--skip-schema-validation", action="store_true")
    parser.add_argument("--disable-openapi-validation", action="store_true")
    parser.add_argument("--render-subchart-notes", action="store_true")
    parser.add_argument("--release-history-max", "--deployed-depth", type=int, default=0,
                        dest="release_history_max")
    parser.add_argument("--include-history-values", action="store_true")
    parser.add_argument("--wait-for-lock", default="0s")
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
    parser.set_defaults(handler=_guarded(_install))


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
    parser.set_defaults(handler=_guarded(_upgrade))


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
    parser.add_argument("--timeout", default="5m0s")
    parser.add_argument("--no-hooks", action="store_true")
    parser.add_argument("--wait-for-lock", default="0s")
    parser.set_defaults(handler=_guarded(_rollback))


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
    parser.add_argument("--timeout", default="5m0s")
    parser.add_argument("--description", default="")
    parser.add_argument("--wait-for-lock", default="0s")
    parser.set_defaults(handler=_guarded(_uninstall))


def _chart_source_flags(parser: argparse.ArgumentParser) -> None:
    """--version, --repo, credentials (runner.chart.sources) and --dependency-update."""
    from runner.actions.flags import add_source_flags

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


def _config(args: argparse.Namespace) -> Any:
    from runner.actions.release_config import ActionConfig

    cfg = ActionConfig.connect(args.namespace, args.kubeconfig, args.kube_context)
    cfg.on_message = _print_message
    return cfg


def _print_message(message: Any) -> None:
    """What an action tells while it runs: Helm's warning lines go to stderr as they are."""
    print(message.text, file=sys.stderr)


def _values(args: argparse.Namespace) -> dict[str, Any]:
    from runner import engine

    sets = {flag: getattr(args, flag.replace("-", "_")) for flag in _SET_FLAGS}
    return engine.merge_user_values(args.values_files, sets)


def _deploy_options(args: argparse.Namespace, name: str, chart: str) -> Any:
    """The flags install and upgrade share."""
    from runner.actions.deploy import DeployOptions
    from runner.actions.postrender import post_renderer

    # Arguments evaluate in order: a bad chart, values file or flag is reported first.
    return DeployOptions(
        name=name, chart=_chart_path(args, chart), values=_values(args),
        dry_run=_dry(args.dry_run), wait=_waits(args.wait), wait_strategy=_strategy(args.wait),
        timeout=parse_duration(args.timeout), wait_for_lock=parse_duration(args.wait_for_lock),
        labels=_labels(args.labels), post_renderer=post_renderer(args),
        server_side=args.server_side, force_conflicts=args.force_conflicts,
        hide_secret=args.hide_secret, take_ownership=args.take_ownership,
        create_namespace=args.create_namespace, skip_crds=args.skip_crds, no_hooks=args.no_hooks,
        wait_for_jobs=args.wait_for_jobs, rollback_on_failure=args.rollback_on_failure,
        description=args.description, skip_schema_validation=args.skip_schema_validation,
        render_subchart_notes=args.render_subchart_notes,
        release_history_max=args.release_history_max,
        include_history_values=args.include_history_values)


def _install(args: argparse.Namespace) -> int:
    from runner.actions.install import InstallOptions, install

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
    opts = _deploy_options(args, name, chart)
    own = InstallOptions(generate_name=args.generate_name, replace=args.replace)
    result = _failing("INSTALLATION FAILED", lambda: install(_config(args), opts, own))
    _print_result(result, args.output)
    return 0


def _upgrade(args: argparse.Namespace) -> int:
    from runner.actions.upgrade import UpgradeOptions, upgrade

    opts = _deploy_options(args, args.name, args.chart)
    own = UpgradeOptions(
        install=args.install, reuse_values=args.reuse_values, reset_values=args.reset_values,
        reset_then_reuse_values=args.reset_then_reuse_values, cleanup_on_fail=args.cleanup_on_fail,
        history_max=args.history_max, force_replace=args.force_replace)
    result = _failing("UPGRADE FAILED", lambda: upgrade(_config(args), opts, own))
    if args.output == "table":
        if result.release.version == 1:
            print(f'Release "{args.name}" does not exist. Installing it now.')
        else:
            print(f'Release "{args.name}" has been upgraded. Happy Helming!')
    _print_result(result, args.output)
    return 0


def _rollback(args: argparse.Namespace) -> int:
    from runner.actions.rollback import RollbackOptions, rollback

    opts = RollbackOptions(
        name=args.name, revision=args.revision, server_side=args.server_side,
        force_conflicts=args.force_conflicts, cleanup_on_fail=args.cleanup_on_fail,
        history_max=args.history_max, dry_run=args.dry_run, wait=_waits(args.wait),
        wait_strategy=_strategy(args.wait), wait_for_jobs=args.wait_for_jobs,
        timeout=parse_duration(args.timeout), no_hooks=args.no_hooks,
        wait_for_lock=parse_duration(args.wait_for_lock))
    result = rollback(_config(args), opts)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.output == "json":
        sys.stdout.write(encode_data(_result_json(result), "json"))
    else:
        print("Rollback was a success! Happy Helming!")
    return 0


def _uninstall(args: argparse.Namespace) -> int:
    from runner.actions.uninstall import UninstallOptions, uninstall

    cfg = _config(args)
    for name in args.names:
        opts = UninstallOptions(
            name=name, keep_history=args.keep_history, cascade=args.cascade,
            no_hooks=args.no_hooks, dry_run=args.dry_run, wait=_waits(args.wait),
            timeout=parse_duration(args.timeout), ignore_not_found=args.ignore_not_found,
            description=args.description, wait_for_lock=parse_duration(args.wait_for_lock))
        result = uninstall(cfg, opts)
        if result is not None and result.info:
            print(result.info)
        print(f'release "{name}" uninstalled')
    return 0


def _status(args: argparse.Namespace) -> int:
    from runner.actions.query import get_release, resource_tables

    cfg = _config(args)
    release = get_release(cfg, args.name, args.revision)
    if args.output == "table":
        sys.stdout.write(status_text(release, resources=resource_tables(cfg, release)))
        return 0
    from runner.actions.query import resource_objects

    release.chart = None  # helm status leaves the chart out
    release.info.resources = resource_objects(cfg, release) or None
    sys.stdout.write(encode_data(release.to_json(), args.output))
    return 0


def _test(args: argparse.Namespace) -> int:
    import re

    from runner.actions.release_test import TestOptions, pod_logs, run_tests

    opts = TestOptions(name=args.name, timeout=parse_duration(args.timeout))
    for text in args.filter:
        for item in text.split(","):
            if item.startswith("name="):
                opts.include.append(item[len("name="):])
            elif re.match(r"^!\s?name=", item):
                opts.exclude.append(re.sub(r"^!\s?name=", "", item, count=1))
    cfg = _config(args)
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


def _history(args: argparse.Namespace) -> int:
    from runner.actions.query import history

    rows = history(_config(args), args.name, args.max)
    if args.output != "table":
        sys.stdout.write(encode_data([asdict(r) for r in rows], args.output))
        return 0
    table = [["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"]]
    for row in rows:
        table.append([str(row.revision), ansic(row.updated), row.status, row.chart,
                      row.app_version, row.description])
    from runner.encoding.uitable import render_table

    sys.stdout.write(render_table(table) + "\n")
    return 0


def _get(args: argparse.Namespace) -> int:
    from runner.actions import query
    from runner.funcs.helm import to_yaml

    cfg = _config(args)
    if args.what == "values":
        values = query.values(cfg, args.name, args.revision, args.all_values)
        if args.output == "json":
            sys.stdout.write(encode_data(values, "json"))
            return 0
        if args.output == "yaml":
            print(to_yaml(values) if values else "null")
            return 0
        print("COMPUTED VALUES:" if args.all_values else "USER-SUPPLIED VALUES:")
        print(to_yaml(values) if values else "null")
        return 0
    release = query.get_release(cfg, args.name, args.revision)
    if args.what == "all":
        if args.template:
            sys.stdout.write(_release_template(args.template, release))
            return 0
        computed = query.values(cfg, args.name, args.revision, True)
        sys.stdout.write(status_text(release, show_metadata=True, debug_values=(release.config, computed)))
    elif args.what == "manifest":
        sys.stdout.write(release.manifest + "\n")
    elif args.what == "notes":
        print(f"NOTES:\n{release.info.notes}")
    elif args.what == "metadata":
        data = release_metadata(release)
        sys.stdout.write(metadata_text(data) if args.output == "table" else encode_data(data, args.output))
    else:
        for hook in release.hooks:
            sys.stdout.write(f"---\n# Source: {hook.path}\n{hook.manifest}\n")
    return 0


def release_metadata(release: Any) -> dict[str, Any]:
    """action.Metadata of a release record (`get metadata`), in its JSON field order."""
    meta = (release.chart or {}).get("metadata") or {}
    data: dict[str, Any] = {"name": release.name, "chart": meta.get("name", ""),
                            "version": meta.get("version", ""), "appVersion": meta.get("appVersion", "")}
    if meta.get("annotations"):
        data["annotations"] = dict(sorted(meta["annotations"].items()))  # a Go map: sorted
    if release.labels:
        data["labels"] = dict(sorted(release.labels.items()))
    if meta.get("dependencies"):
        data["dependencies"] = meta["dependencies"]
    deployed = release.info.last_deployed
    data.update(namespace=release.namespace, revision=release.version, status=release.info.status,
                deployedAt=_rfc3339(deployed) if deployed else "0001-01-01T00:00:00Z")
    if release.apply_method:
        data["applyMethod"] = release.apply_method
    return data


def metadata_text(data: dict[str, Any]) -> str:
    """metadataWriter.WriteTable: annotations as a label set, dependency names sorted."""
    def label_set(mapping: dict[str, str] | None) -> str:
        return ",".join(f"{k}={v}" for k, v in sorted((mapping or {}).items()))

    dependencies = ",".join(sorted(d.get("name", "") for d in data.get("dependencies") or []))
    text = (f"NAME: {data['name']}\nCHART: {data['chart']}\nVERSION: {data['version']}\n"
            f"APP_VERSION: {data['appVersion']}\nANNOTATIONS: {label_set(data.get('annotations'))}\n"
            f"LABELS: {label_set(data.get('labels'))}\n"
            f"DEPENDENCIES: {dependencies}\nNAMESPACE: {data['namespace']}\n"
            f"REVISION: {data['revision']}\nSTATUS: {data['status']}\n"
            f"DEPLOYED_AT: {data['deployedAt']}\n")
    method = APPLY_METHOD_NAMES.get(data.get("applyMethod", ""))
    return text + (f"APPLY_METHOD: {method}\n" if method else "")


APPLY_METHOD_NAMES = {"ssa": "server-side apply", "csa": "client-side apply"}


def _rfc3339(stamp: str) -> str:
    """time.RFC3339 of a stored timestamp: whole seconds, Z for UTC."""
    from runner.release.record import parse_go_time

    moment = parse_go_time(stamp)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S%z")
    zone = text[-5:]
    return text[:-5] + ("Z" if zone == "+0000" else f"{zone[:3]}:{zone[3:]}")


def _release_template(text: str, release: Any) -> str:
    """get all --template: Go's text/template over {"Release": <the release>} with
    Helm's Go field names (no Sprig functions, as Helm's tpl helper)."""
    from runner.template import Template

    info = release.info
    meta = (release.chart or {}).get("metadata") or {}
    data = {"Release": {
        "Name": release.name, "Namespace": release.namespace, "Version": release.version,
        "Manifest": release.manifest, "Config": release.config, "Labels": release.labels,
        "ApplyMethod": release.apply_method,
        "Info": {"Status": info.status, "Description": info.description, "Notes": info.notes,
                 "FirstDeployed": go_time_text(info.first_deployed),
                 "LastDeployed": go_time_text(info.last_deployed), "Deleted": go_time_text(info.deleted)},
        "Chart": {"Metadata": {k[:1].upper() + k[1:]: v for k, v in meta.items()}},
        "Hooks": [{"Name": h.name, "Kind": h.kind, "Path": h.path, "Manifest": h.manifest,
                   "Events": h.events, "Weight": h.weight} for h in release.hooks],
    }}
    try:
        return Template("_").parse("_", text).execute("_", data)
    except Exception as err:  # a template error is the user's, shown as Helm shows it
        raise RunnerError(str(err)) from err


def go_time_text(stamp: str) -> str:
    """A time.Time as fmt prints it: 2006-01-02 15:04:05.999999999 +0000 UTC."""
    if not stamp:
        return "0001-01-01 00:00:00 +0000 UTC"
    head, _, rest = stamp.rstrip("Z").partition(".")
    fraction = rest.rstrip("0")
    return head.replace("T", " ") + (f".{fraction}" if fraction else "") + " +0000 UTC"


# -- output ------------------------------------------------------------------------


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


def _print_result(result: Any, output: str) -> None:
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if output != "table":  # our result document (the release under "release"), not Helm's shape
        sys.stdout.write(encode_data(_result_json(result), output))
        return
    sys.stdout.write(status_text(result.release, dry_run=bool(result.dry_run)))


def _result_json(result: Any) -> dict[str, Any]:
    data = asdict(result)
    data["release"] = result.release.to_json()
    return data


def status_text(release: Any, dry_run: bool = False, resources: str = "", *,
                show_metadata: bool = False, debug_values: tuple[Any, Any] | None = None) -> str:
    """Helm's statusPrinter (table output of install, upgrade, status, test, get all)."""
    info = release.info
    lines = [f"NAME: {release.name}"]
    if info.last_deployed:
        lines.append(f"LAST DEPLOYED: {ansic(info.last_deployed)}")
    lines += [f"NAMESPACE: {release.namespace}", f"STATUS: {info.status}", f"REVISION: {release.version}"]
    if show_metadata:
        meta = (release.chart or {}).get("metadata") or {}
        lines += [f"CHART: {meta.get('name', '')}", f"VERSION: {meta.get('version', '')}",
                  f"APP_VERSION: {meta.get('appVersion', '')}"]
    lines.append(f"DESCRIPTION: {info.description}")
    if resources:
        lines.append(f"RESOURCES:\n{resources}")
    lines += _test_suite(release)
    if debug_values is not None:
        lines += _values_sections(*debug_values)
    if dry_run or debug_values is not None or info.description.lower() == "dry run complete":
        lines += ["HOOKS:"] + [f"---\n# Source: {h.path}\n{h.manifest}" for h in release.hooks]
        lines += [f"MANIFEST:\n{release.manifest}"]
    if info.notes:
        lines.append(f"NOTES:\n{info.notes.strip()}")
    return "\n".join(lines) + "\n"


def _test_suite(release: Any) -> list[str]:
    """TEST SUITE: None without test hooks; else each test hook that has run."""
    tests = [h for h in release.hooks if "test" in h.events]
    if not tests:
        return ["TEST SUITE: None"]
    return [f"TEST SUITE:     {h.name}\nLast Started:   {ansic(h.last_run.started_at)}\n"
            f"Last Completed: {ansic(h.last_run.completed_at) or GO_ZERO_ANSIC}\nPhase:          {h.last_run.phase}"
            for h in tests if h.last_run.started_at]


GO_ZERO_ANSIC = "Mon Jan  1 00:00:00 0001"


def _values_sections(user: Any, computed: Any) -> list[str]:
    from runner.funcs.helm import to_yaml

    return [f"USER-SUPPLIED VALUES:\n{to_yaml(user or None)}\n",
            f"COMPUTED VALUES:\n{to_yaml(computed or None)}\n"]


def ansic(stamp: str) -> str:
    """Go's time.ANSIC layout (Mon Jan _2 15:04:05 2006), in UTC."""
    from runner.release.record import parse_go_time

    if not stamp:
        return ""
    moment: datetime = parse_go_time(stamp)
    return moment.strftime("%a %b ") + f"{moment.day:>2}" + moment.strftime(" %H:%M:%S %Y")


def parse_duration(text: str) -> float:
    """A Go duration (5m0s, 90s, 1h) in seconds."""
    import re

    if re.fullmatch(r"\d+(\.\d+)?", text):
        return float(text)
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|ms|m|s)", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise UsageError(f'invalid argument "{text}": time: invalid duration "{text}"')
    scale = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001}
    return sum(float(n) * scale[u] for n, u in parts)
