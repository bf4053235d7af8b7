"""The read-only release commands: status, history, get (values, manifest, notes, hooks,
metadata, all and its --template), printed as Helm prints them."""

from __future__ import annotations

import argparse
import sys

from runner.cli.cluster import action_config
from runner.cli.printers import (
    ansic,
    encode_data,
    go_time_text,
    metadata_text,
    release_metadata,
    status_text,
)
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def status(args: argparse.Namespace) -> int:
    from runner.actions.query import get_release, resource_tables

    cfg = action_config(args)
    release = get_release(cfg, args.name, args.revision)
    if args.output == "table":
        sys.stdout.write(status_text(release, resources=resource_tables(cfg, release)))
        return 0
    from runner.actions.query import resource_objects

    release.chart = None  # helm status leaves the chart out
    release.info.resources = resource_objects(cfg, release) or None
    sys.stdout.write(encode_data(release.to_json(), args.output))
    return 0


def history(args: argparse.Namespace) -> int:
    from runner.actions.query import history as release_history

    rows = release_history(action_config(args), args.name, args.max)
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


def get(args: argparse.Namespace) -> int:
    from runner.actions import query
    from runner.funcs.helm import to_yaml

    cfg = action_config(args)
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
