"""The read-only release commands: status, history, get (values, manifest, notes, hooks,
metadata, all and its --template), printed as Helm prints them."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cluster import action_config, command_journal
from runner.cli.cobra import Command, exact_args
from runner.cli.flags import output_flag
from runner.cli.printers import (
    ansic,
    encode_data,
    go_time_text,
    metadata_text,
    release_metadata,
    status_text,
)
from runner.errors import RunnerError

if TYPE_CHECKING:
    from collections.abc import Callable

    from runner.cli.pflag import FlagSet, Namespace

STATUS_LONG = """
This command shows the status of a named release.
The status consists of:
- last deployment time
- k8s namespace in which the release lives
- state of the release (can be: unknown, deployed, uninstalled, superseded, failed, uninstalling, pending-install, pending-upgrade or pending-rollback)
- revision of the release
- description of the release (can be completion message or error message)
- list of resources that this release consists of
- details on last test suite run, if applicable
- additional notes provided by the chart
"""
HISTORY_LONG = """
History prints historical revisions for a given release.

A default maximum of 256 revisions will be returned. Setting '--max'
configures the maximum length of the revision list returned.
"""
GET_LONG = """
This command consists of multiple subcommands which can be used to
get extended information about the release, including:

- The values used to generate the release
- The generated manifest file
- The notes provided by the chart of the release
- The hooks associated with the release
- The metadata of the release
"""
GET_COMMANDS = {  # name: short description
    "all": "download all information for a named release",
    "hooks": "download all hooks for a named release",
    "manifest": "download the manifest for a named release",
    "metadata": "This command fetches metadata for a given release",
    "notes": "download the notes for a named release",
    "values": "download the values file for a named release",
}


def build(name: str) -> Command:
    if name == "status":
        return Command("status RELEASE_NAME", "display the status of the named release", long=STATUS_LONG,
                       args=exact_args(1), run=status, flags=_status_flags)
    if name == "history":
        return Command("history RELEASE_NAME", "fetch release history", long=HISTORY_LONG, aliases=("hist",),
                       args=exact_args(1), run=history, flags=_history_flags)
    return Command("get", "download extended information of a named release", long=GET_LONG,
                   children=[Command(f"{what} RELEASE_NAME", short, args=exact_args(1),
                                     run=lambda args, what=what: get(args, what), flags=_get_flags(what))
                             for what, short in GET_COMMANDS.items()])


def _status_flags(fs: FlagSet) -> None:
    fs.int("revision", "if set, display the status of the named release with revision")
    output_flag(fs)


def _history_flags(fs: FlagSet) -> None:
    fs.int("max", "maximum number of revision to include in history", default=256)
    output_flag(fs)


def _get_flags(what: str) -> Callable[[FlagSet], None]:
    def define(fs: FlagSet) -> None:
        usage = "specify release revision" if what == "metadata" else "get the named release with revision"
        fs.int("revision", usage)
        if what == "all":
            fs.string("template", "go template for formatting the output, eg: {{.Release.Name}}")
        if what == "values":
            fs.bool("all", "dump all (computed) values", short="a", dest="all_values")
        if what in ("values", "metadata"):
            output_flag(fs)
    return define


def status(args: Namespace) -> int:
    from runner.actions.query import get_release, resource_tables

    cfg = action_config(args, command_journal(args))
    release = get_release(cfg, args.args[0], args.revision)
    if args.output == "table":
        sys.stdout.write(status_text(release, resources=resource_tables(cfg, release)))
        return 0
    from runner.actions.query import resource_objects

    release.chart = None  # helm status leaves the chart out
    release.info.resources = resource_objects(cfg, release) or None
    sys.stdout.write(encode_data(release.to_json(), args.output))
    return 0


def history(args: Namespace) -> int:
    from runner.actions.query import history as release_history

    rows = release_history(action_config(args, command_journal(args)), args.args[0], args.max)
    if args.output != "table":
        from dataclasses import asdict

        sys.stdout.write(encode_data([asdict(r) for r in rows], args.output))
        return 0
    table = [["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"]]
    for row in rows:
        table.append([str(row.revision), ansic(row.updated), row.status, row.chart,
                      row.app_version, row.description])
    from runner.encoding.uitable import render_table

    sys.stdout.write(render_table(table) + "\n")
    return 0


def get(args: Namespace, what: str) -> int:
    """get all|values|manifest|notes|hooks|metadata RELEASE_NAME."""
    from runner.actions import query
    from runner.funcs.helm import to_yaml

    cfg = action_config(args, command_journal(args))
    name = args.args[0]
    if what == "values":
        values = query.values(cfg, name, args.revision, args.all_values)
        if args.output == "json":
            sys.stdout.write(encode_data(values, "json"))
            return 0
        if args.output == "yaml":
            print(to_yaml(values) if values else "null")
            return 0
        print("COMPUTED VALUES:" if args.all_values else "USER-SUPPLIED VALUES:")
        print(to_yaml(values) if values else "null")
        return 0
    release = query.get_release(cfg, name, args.revision)
    if what == "all":
        if args.template:
            sys.stdout.write(_release_template(args.template, release))
            return 0
        computed = query.values(cfg, name, args.revision, True)
        sys.stdout.write(status_text(release, show_metadata=True, debug_values=(release.config or None, computed)))
    elif what == "manifest":
        sys.stdout.write(release.manifest + "\n")
    elif what == "notes":
        print(f"NOTES:\n{release.info.notes}")
    elif what == "metadata":
        data = release_metadata(release)
        sys.stdout.write(metadata_text(data) if args.output == "table" else encode_data(data, args.output))
    else:
        for hook in release.hooks:
            sys.stdout.write(f"---\n# Source: {hook.path}\n{hook.manifest}\n")
    return 0


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
