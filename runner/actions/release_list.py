"""`list` (alias `ls`): the latest record of each release, filtered and sorted as Helm's action.List.

Records are read from the release storage (all records with owner=helm in the
namespace, or in every namespace with -A); the newest revision of each release
is kept unless only --superseded is asked for; then the state mask, --filter (a Go regexp on the name) and --selector (labels)
apply (every state by default); then sorting (name, -d date, -r reverse), --offset and --max.
"""

from __future__ import annotations

import argparse
import sys

from runner.actions.flags import add_flag, helm_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

STATE_FLAGS = {
    "deployed": ("deployed",),
    "failed": ("failed",),
    "pending": ("pending-install", "pending-upgrade", "pending-rollback"),
    "superseded": ("superseded",),
    "uninstalled": ("uninstalled",),
    "uninstalling": ("uninstalling",),
}
ALL_STATES = {"unknown", *(state for states in STATE_FLAGS.values() for state in states)}


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

    namespace = "" if args.all_namespaces else args.namespace
    cfg = ActionConfig.connect(namespace, args.kubeconfig, args.kube_context)
    if args.all_namespaces:
        cfg.storage.driver.namespace = ""
    releases = select(cfg.storage.driver.query({"owner": "helm"}), args)
    sys.stdout.write(render(releases, args))
    return 0


def state_mask(args: argparse.Namespace) -> set[str]:
    """SetStateMask: the states asked for; every state when none is (Helm 4 dropped --all)."""
    wanted = {state for flag, states in STATE_FLAGS.items() if getattr(args, flag) for state in states}
    return wanted or ALL_STATES


def select(records: list[Any], args: argparse.Namespace) -> list[Any]:
    """List.Run after the storage read: filter, latest revisions, states, selector, order, page."""
    if args.filter:
        from runner.funcs.regex import compile_go
        from runner.golang.gofunc import FuncError

        try:
            pattern = compile_go(args.filter)
        except FuncError as err:
            raise RunnerError(str(err)) from err
        records = [r for r in records if pattern.matches(r.name)]
    mask = state_mask(args)
    if mask != {"superseded"}:
        records = latest_revisions(records)
    records = [r for r in records if r.info.status in mask]
    matches = label_selector(args.selector)
    records = [r for r in records if matches(r.labels)]
    records = ordered(records, args.date, args.reverse)
    if args.offset >= len(records):
        return []
    limit = args.max if 0 < args.max < len(records) else len(records)
    return records[args.offset:args.offset + limit]


def latest_revisions(records: list[Any]) -> list[Any]:
    """filterLatestReleases: the highest revision of each namespace/name."""
    latest: dict[tuple[str, str], Any] = {}
    for record in records:
        key = (record.namespace, record.name)
        if key not in latest or record.version >= latest[key].version:
            latest[key] = record
    return list(latest.values())


def ordered(records: list[Any], by_date: bool, reverse: bool) -> list[Any]:
    """releaseutil.SortByName, or SortByDate (oldest first, then name); -r reverses either."""
    from runner.release.record import parse_go_time

    if by_date:
        def key(r: Any) -> Any:
            seconds = int(parse_go_time(r.info.last_deployed).timestamp()) if r.info.last_deployed else 0
            return seconds, r.name
        result = sorted(records, key=key)
        # ByDateDesc is SortByDate as it is; with -r Helm reverses it (ByDateAsc).
        return result[::-1] if reverse else result
    result = sorted(records, key=lambda r: r.name)
    return result[::-1] if reverse else result


def label_selector(text: str) -> Any:
    """labels.Parse for the forms Helm documents (k=v, k==v, k!=v) plus `k` and `!k`."""
    requirements = [_requirement(p.strip()) for p in text.split(",") if p.strip()]
    return lambda labels: all(_satisfied(r, labels) for r in requirements)


def _requirement(part: str) -> tuple[str, str, str]:
    """(key, operator, value) of one selector term."""
    if "!=" in part:
        key, value = part.split("!=", 1)
        return key.strip(), "!=", value.strip()
    if "=" in part:
        key, value = part.replace("==", "=", 1).split("=", 1)
        return key.strip(), "=", value.strip()
    if part.startswith("!"):
        return part[1:].strip(), "!", ""
    return part, "exists", ""


def _satisfied(requirement: tuple[str, str, str], labels: dict[str, str]) -> bool:
    key, operator, value = requirement
    if operator == "=":
        return labels.get(key) == value
    if operator == "!=":
        return labels.get(key) != value
    return (key in labels) == (operator == "exists")


def render(releases: list[Any], args: argparse.Namespace) -> str:
    """The names (-q), the table, or releaseElement records as JSON or YAML."""
    from runner.actions.output import encode_data

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
        from runner.golang.time import go_format

        return go_format(parse_go_time(stamp), time_format)
    return go_time_string(stamp)


def go_time_string(stamp: str) -> str:
    """time.Time.String() of an RFC 3339 stamp: `2006-01-02 15:04:05.999999999 -0700 MST`,
    the zone named UTC at offset zero (as Go names a parsed zone that matches Local=UTC)."""
    date, _, clock = stamp.partition("T")
    zone_at = max(clock.rfind("+"), clock.rfind("-"), clock.find("Z") if "Z" in clock else -1)
    time_part, zone = clock[:zone_at], clock[zone_at:]
    offset = "+0000" if zone in ("Z", "+00:00", "-00:00") else zone.replace(":", "")
    name = "UTC" if offset == "+0000" else offset
    seconds, _, fraction = time_part.partition(".")
    fraction = fraction.rstrip("0")
    return f"{date} {seconds}{'.' + fraction if fraction else ''} {offset} {name}"
