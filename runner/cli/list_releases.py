"""`list` (alias `ls`): releases as Helm's `helm list` prints them (runner.actions.release_list
selects them)."""

from __future__ import annotations

import argparse
import sys

from runner.actions.release_list import STATE_FLAGS
from runner.cli.flags import add_flag, helm_flags
from runner.cli.printers import encode_data, go_time_string

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("list", aliases=["ls"], help="list releases",
                                   allow_abbrev=False)
    add_flag(parser, "-n", "--namespace", default=None)
    parser.add_argument("--kubeconfig", default=None)
    parser.add_argument("--kube-context", default=None)
    add_flag(parser, "-A", "--all-namespaces", action="store_true")
    add_flag(parser, "-d", "--date", action="store_true")
    add_flag(parser, "-r", "--reverse", action="store_true")
    add_flag(parser, "-f", "--filter", default="")
    add_flag(parser, "-l", "--selector", default="")
    add_flag(parser, "-m", "--max", type=int, default=256)
    parser.add_argument("--offset", type=int, default=0)
    add_flag(parser, "-q", "--short", action="store_true")
    add_flag(parser, "-o", "--output", choices=("table", "json", "yaml"), default="table")
    parser.add_argument("--no-headers", action="store_true")
    parser.add_argument("--time-format", default="")
    for state in STATE_FLAGS:
        parser.add_argument(f"--{state}", action="store_true")
    parser.set_defaults(handler=handle)
    helm_flags(parser)


def handle(args: argparse.Namespace) -> int:
    from runner.actions.release_config import ActionConfig
    from runner.actions.release_list import select

    namespace = "" if args.all_namespaces else args.namespace
    cfg = ActionConfig.connect(namespace, args.kubeconfig, args.kube_context)
    if args.all_namespaces:
        cfg.storage.driver.namespace = ""
    releases = select(cfg.storage.driver.query({"owner": "helm"}), args)
    sys.stdout.write(render(releases, args))
    return 0


def render(releases: list[Any], args: argparse.Namespace) -> str:
    """The names (-q), the table, or releaseElement records as JSON or YAML."""

    if args.short:
        names = [r.name for r in releases]
        return "".join(f"{n}\n" for n in names) if args.output == "table" else encode_data(names, args.output)
    rows = [element(r, args.time_format) for r in releases]
    if args.output != "table":
        return encode_data(rows, args.output)
    from runner.encoding.uitable import render_table

    header = [] if args.no_headers else [["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"]]
    table = header + [list(row.values()) for row in rows]
    return render_table(table) + "\n"


def element(record: Any, time_format: str) -> dict[str, str]:
    """releaseElement: the fields as Helm's list writer fills them."""
    metadata = (record.chart or {}).get("metadata")
    return {
        "name": record.name,
        "namespace": record.namespace,
        "revision": str(record.version),
        "updated": updated(record.info.last_deployed, time_format),
        "status": record.info.status,
        "chart": f"{metadata.get('name', '')}-{metadata.get('version', '')}" if metadata else "MISSING",
        "app_version": str(metadata.get("appVersion", "")) if metadata else "MISSING",
    }


def updated(stamp: str, time_format: str) -> str:
    """LastDeployed as time.Time.String() (or --time-format); "-" for the zero time."""
    from runner.release.record import parse_go_time

    if not stamp or stamp.startswith("0001-01-01T00:00:00"):
        return "-"
    if time_format:
        from runner.funcs.gotime import go_format

        return go_format(parse_go_time(stamp), time_format)
    return go_time_string(stamp)
