"""`list` (alias `ls`): releases as Helm's `helm list` prints them (runner.actions.release_list
selects them)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, no_args
from runner.cli.flags import output_flag
from runner.cli.printers import encode_data, go_time_string

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
This command lists all of the releases for a specified namespace (uses current namespace context if namespace not specified).

By default, it lists all releases in any status. Individual status filters like '--deployed', '--failed',
'--pending', '--uninstalled', '--superseded', and '--uninstalling' can be combined to show only releases
in those states. Multiple status flags can be specified together (e.g. '--deployed --failed').

By default, items are sorted alphabetically. Use the '-d' flag to sort by
release date.

If the --filter flag is provided, it will be treated as a filter. Filters are
regular expressions (Perl compatible) that are applied to the list of releases.
Only items that match the filter will be returned.
"""
STATE_USAGES = {
    "deployed": "show deployed releases",
    "failed": "show failed releases",
    "pending": "show pending releases",
    "superseded": "show superseded releases",
    "uninstalled": "show uninstalled releases (if 'helm uninstall --keep-history' was used)",
    "uninstalling": "show releases that are currently being uninstalled",
}


def build(_name: str) -> Command:
    return Command("list", "list releases", long=LONG, aliases=("ls",), args=no_args, run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    fs.bool("short", "output short (quiet) listing format", short="q")
    fs.bool("no-headers", "don't print headers when using the default output format")
    fs.string("time-format", 'format time using golang time formatter. Example: --time-format "2006-01-02 '
              '15:04:05Z0700"')
    fs.bool("date", "sort by release date", short="d")
    fs.bool("reverse", "reverse the sort order", short="r")
    fs.bool("all-namespaces", "list releases across all namespaces", short="A")
    fs.int("max", "maximum number of releases to fetch", default=256, short="m")
    fs.int("offset", "next release index in the list, used to offset from start value")
    fs.string("filter", "a regular expression (Perl compatible). Any releases that match the expression will "
              "be included in the results", short="f")
    fs.string("selector", "Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l "
              "key1=value1,key2=value2). Works only for secret(default) and configmap storage backends.",
              short="l")
    for state, usage in STATE_USAGES.items():
        fs.bool(state, usage)
    output_flag(fs)


def handle(args: Namespace) -> int:
    from runner.actions.release_list import select
    from runner.cli.cluster import action_config, command_journal

    cfg = action_config(args, command_journal(args))
    if args.all_namespaces:
        cfg = cfg.in_namespace("")  # the storage of every namespace
    releases = select(cfg.storage.driver.query({"owner": "helm"}), list_options(args))
    sys.stdout.write(render(releases, args))
    return 0


def list_options(args: Namespace) -> Any:
    """The flags as runner.actions.release_list.ListOptions."""
    from runner.actions.release_list import ListOptions

    return ListOptions(filter=args.filter, selector=args.selector,
                       states=frozenset(state for state in STATE_USAGES if getattr(args, state)),
                       by_date=args.date, reverse=args.reverse, offset=args.offset, max=args.max)


def render(releases: list[Any], args: Namespace) -> str:
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
        from runner.golang.time import go_format

        return go_format(parse_go_time(stamp), time_format)
    return go_time_string(stamp)
