"""`search repo [KEYWORD]`: charts of the added repositories' cached indexes (Helm's search package).

Each chart version is indexed by a line `name\\vrepo/name\\vdescription\\vkeywords`;
a match scores by the field it falls in (0 for the name), scores of 25 and
more are dropped, and results are ordered by score, name and newest version.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command
from runner.cli.errors import user_errors
from runner.cli.flags import output_flag, print_said
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Search provides the ability to search for Helm charts in the various places
they can be stored including the Artifact Hub and repositories you have added.
Use search subcommands to search different locations for charts.
"""
REPO_LONG = """
Search reads through all of the repositories configured on the system, and
looks for matches. Search of these repositories uses the metadata stored on
the system.

It will display the latest stable versions of the charts found. If you
specify the --devel flag, the output will include pre-release versions.
If you want to search using a version constraint, use --version.
"""
FIELD_SEPARATOR = "\v"
MAX_SCORE = 25


class Result:
    __slots__ = ("name", "score", "chart")

    def __init__(self, name: str, score: int, chart: Any) -> None:
        self.name = name
        self.score = score
        self.chart = chart  # an index ChartVersion


def build(_name: str) -> Command:
    return Command("search [keyword]", "search for a keyword in charts", long=LONG, children=[
        Command("repo [keyword]", "search repositories for a keyword in charts", long=REPO_LONG,
                run=handle_repo, flags=_repo_flags),
    ])


def _repo_flags(fs: FlagSet) -> None:
    fs.bool("regexp", "use regular expressions for searching repositories you have added", short="r")
    fs.bool("versions", "show the long listing, with each version of each chart on its own line, for "
            "repositories you have added", short="l")
    fs.bool("devel", "use development versions (alpha, beta, and release candidate releases), too. Equivalent "
            "to version '>0.0.0-0'. If --version is set, this is ignored")
    fs.string("version", "search using semantic versioning constraints on repositories you have added",
              dest="chart_version")
    fs.uint("max-col-width", "maximum column width for output table", default=50)
    fs.bool("fail-on-no-result", "search fails if no results are found")
    output_flag(fs)


@user_errors
def handle_repo(args: Namespace) -> int:
    version = args.chart_version or (">0.0.0-0" if args.devel else ">0.0.0")
    lines = build_index(args.versions or bool(version))
    if args.args:
        results = search(lines, " ".join(args.args), args.regexp)
    else:
        results = [Result(key.split("$$")[0], 0, chart) for key, (_, chart) in lines.items()]
    results.sort(key=_order)
    sys.stdout.write(render(apply_constraint(results, version, args.versions), args))
    return 0


def build_index(every_version: bool) -> dict[str, tuple[str, Any]]:
    """search.Index.AddRepo over each repository's cached index: key -> (line, chart)."""
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repofile import load_repo_file
    from runner.golang.slog import text_line

    paths = HelmPaths.from_env()
    repositories = load_repo_file(paths.repository_config).repositories
    if not repositories:
        raise RunnerError("no repositories configured")
    lines: dict[str, tuple[str, Any]] = {}
    for entry in repositories:
        try:
            index = load_index_file(paths.index_file(entry.name))
        except RunnerError as err:
            print(text_line("WARN", "repo is corrupt or missing", {"repo": entry.name, "error": str(err)}),
                  file=sys.stderr)
            continue
        for name, versions in index.entries.items():
            for chart in versions if every_version else versions[:1]:
                key = f"{entry.name}/{name}" + (f"$${chart.version}" if every_version else "")
                lines[key] = (_line(entry.name, chart), chart)
    return lines


def load_index_file(path: Any) -> Any:
    """repo.LoadIndexFile: a read error as Go's, a bad index as `error loading PATH: ...`."""
    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.index import load_index

    try:
        data = path.read_bytes()
    except OSError as err:
        raise RunnerError(f"open {path}: {(err.strerror or str(err)).lower()}") from err
    try:
        return load_index(data, str(path), say=print_said)
    except SourceError as err:
        raise RunnerError(f"error loading {path}: {err}") from err


def _line(repo_name: str, chart: Any) -> str:
    raw = chart.raw
    keywords = " ".join(str(k) for k in raw.get("keywords") or [])
    return FIELD_SEPARATOR.join((chart.name, f"{repo_name}/{chart.name}",
                                 str(raw.get("description") or ""), keywords))


def search(lines: dict[str, tuple[str, Any]], term: str, regexp: bool) -> list[Result]:
    """Search (literal, case-insensitive, or a Go regexp); a match's score is its field."""
    if regexp:
        from runner.funcs.regex import compile_go
        from runner.golang.gofunc import FuncError

        try:
            pattern = compile_go(term)
        except FuncError as err:
            raise RunnerError(str(err)) from err
    else:
        term = term.lower()
    found = []
    for key, (line, chart) in lines.items():
        if regexp:
            at = pattern.index(line)
        else:
            line = line.lower()  # the score is counted on the text searched, as Go does
            at = line.find(term)
        if at >= 0 and (score := line[:at].count(FIELD_SEPARATOR)) < MAX_SCORE:
            found.append(Result(key.split("$$")[0], score, chart))
    return found


def _order(result: Result) -> tuple[int, str, Any]:
    """scoreSorter: score, then name, then the newest version first."""
    from runner.golang import semver

    try:
        newest_first: Any = _Descending(semver.new_version(result.chart.version))
    except semver.SemverError:
        newest_first = _Descending(None)
    return result.score, result.name, newest_first


class _Descending:
    """A SemVer version ordered newest first (an unparsable one last)."""

    __slots__ = ("version",)

    def __init__(self, version: Any) -> None:
        self.version = version

    def __lt__(self, other: _Descending) -> bool:
        from runner.golang import semver

        if self.version is None or other.version is None:
            return other.version is None and self.version is not None
        return semver.compare(self.version, other.version) > 0


def apply_constraint(results: list[Result], version: str, every_version: bool) -> list[Result]:
    """The versions the constraint admits; without --versions, each chart's first only."""
    from runner.golang import semver

    try:
        constraint = semver.new_constraint(version)
    except semver.SemverError as err:
        raise RunnerError(f"an invalid version/constraint format: {err}") from err
    kept, seen = [], set()
    for result in results:
        if not every_version and result.name in seen:
            continue
        try:
            admitted = constraint.check(semver.new_version(result.chart.version))
        except semver.SemverError:
            continue
        if admitted:
            kept.append(result)
            seen.add(result.name)
    return kept


def render(results: list[Result], args: Namespace) -> str:
    """repoSearchWriter: a table (or `No results found`), or the list as JSON or YAML."""
    if not results and args.fail_on_no_result:
        raise RunnerError("no results found")
    if args.output != "table":
        from runner.cli.printers import encode_data

        return encode_data([{"name": r.name, "version": r.chart.version,
                             "app_version": r.chart.app_version,
                             "description": str(r.chart.raw.get("description") or "")}
                            for r in results], args.output)
    if not results:
        return "No results found\n"
    from runner.encoding.uitable import render_table

    rows = [["NAME", "CHART VERSION", "APP VERSION", "DESCRIPTION"]]
    rows += [[r.name, r.chart.version, r.chart.app_version, str(r.chart.raw.get("description") or "")]
             for r in results]
    return render_table(rows, args.max_col_width) + "\n"
