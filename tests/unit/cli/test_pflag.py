"""pflag's parsing and cobra's command finding, offline (tests/conformance/test_cli_commands.py
compares whole command lines with the helm binary)."""

from __future__ import annotations

import pytest

from runner.cli import root_command
from runner.cli.cobra import find, levenshtein, strip_flags
from runner.cli.pflag import (
    _DEFAULT_SECONDS,
    FlagError,
    FlagSet,
    FuncValue,
    HelpRequested,
    parse_seconds,
)


def _flags() -> FlagSet:
    fs = FlagSet()
    fs.string("namespace", "ns", short="n")
    fs.bool("quiet", "q", short="q")
    fs.bool("debug", "d", short="d")
    fs.string_array("set", "set")
    fs.string_slice("values", "values", short="f", dest="values_files")
    fs.string("dry-run", "dry", default="none", no_opt="unset")
    fs.bool("rollback-on-failure", "r")
    fs.bool("atomic", "a", dest="rollback_on_failure", deprecated="use --rollback-on-failure instead")
    fs.string_to_string("labels", "l", short="l")
    return fs


def _parse(*argv: str) -> tuple[dict[str, object], list[str], list[str]]:
    notes: list[str] = []
    args, positional = _flags().parse(list(argv), notes.append)
    return vars(args), positional, notes


def test_a_value_is_the_next_argument_even_when_it_starts_with_a_dash() -> None:
    values, positional, _ = _parse("--set", "-x=1", "-n", "-y", "chart")
    assert (values["set"], values["namespace"], positional) == (["-x=1"], "-y", ["chart"])


def test_short_flags_combine_and_take_attached_values() -> None:
    values, _, _ = _parse("-qd", "-nfoo", "-f=a.yaml,b.yaml", "-f", "c.yaml")
    assert (values["quiet"], values["debug"], values["namespace"]) == (True, True, "foo")
    assert values["values_files"] == ["a.yaml", "b.yaml", "c.yaml"]


def test_a_flag_with_a_no_option_default_takes_a_value_only_after_equals() -> None:
    values, positional, _ = _parse("--dry-run", "server", "--quiet=false")
    assert (values["dry_run"], values["quiet"], positional) == ("unset", False, ["server"])
    assert _parse("--dry-run=server")[0]["dry_run"] == "server"


@pytest.mark.parametrize("argv, expected", [
    (("--atomic", "--rollback-on-failure=false"), False),
    (("--rollback-on-failure=false", "--atomic"), True),
    (("--atomic=false", "--rollback-on-failure", "--atomic=false"), False),
    (("--rollback-on-failure",), True),
])
def test_flags_sharing_a_destination_the_one_set_last_wins(argv: tuple[str, ...], expected: bool) -> None:
    """Go binds both to one variable: each Set overwrites it, in the order given."""
    assert _parse(*argv)[0]["rollback_on_failure"] is expected


def test_double_dash_ends_the_flags() -> None:
    values, positional, _ = _parse("a", "--", "-q", "--set", "x")
    assert (values["quiet"], positional) == (False, ["a", "-q", "--set", "x"])


def test_the_flag_given_wins_over_another_with_its_destination() -> None:
    values, _, notes = _parse("--atomic")
    assert values["rollback_on_failure"] is True
    assert notes == ["Flag --atomic has been deprecated, use --rollback-on-failure instead"]


def test_string_to_string_reads_one_pair_or_a_csv_record() -> None:
    assert _parse("-l", "a=b,c")[0]["labels"] == {"a": "b,c"}
    assert _parse("-l", "a=1,b=2", "--labels", "c=3")[0]["labels"] == {"a": "1", "b": "2", "c": "3"}
    with pytest.raises(FlagError, match=r'^invalid argument "a=1,b=2,c" for "-l, --labels" flag: c must be'):
        _parse("-l", "a=1,b=2,c")


@pytest.mark.parametrize(("argv", "message"), [
    (["--nope"], "unknown flag: --nope"),
    (["-x"], "unknown shorthand flag: 'x' in -x"),
    (["-qx"], "unknown shorthand flag: 'x' in -qx"),
    (["-n"], "flag needs an argument: 'n' in -n"),
    (["--namespace"], "flag needs an argument: --namespace"),
    (["---n"], "bad flag syntax: ---n"),
    (["--quiet=maybe"], 'invalid argument "maybe" for "-q, --quiet" flag: strconv.ParseBool: parsing "maybe": '
                        "invalid syntax"),
])
def test_errors_are_pflags(argv: list[str], message: str) -> None:
    with pytest.raises(FlagError) as caught:
        _parse(*argv)
    assert str(caught.value) == message


def test_help_is_asked_for_even_when_not_declared() -> None:
    with pytest.raises(HelpRequested):
        _parse("--help")


def test_a_custom_value_reports_its_reason() -> None:
    fs = FlagSet()

    def parse(text: str, _current: object) -> str:
        raise ValueError("invalid format type")

    fs.add("output", FuncValue("format", "table", parse, "table"), "o", short="o")
    with pytest.raises(FlagError, match='^invalid argument "a\\\\tb" for "-o, --output" flag: invalid format type$'):
        fs.parse(["-o", "a\tb"], print)


def test_usage_lines_are_aligned_and_show_defaults_as_pflag() -> None:
    text = _flags().usages()
    assert '      --dry-run string[="unset"]   dry (default "none")\n' in text
    assert "  -f, --values strings             values\n" in text
    assert "atomic" in text  # deprecated flags show with their notice unless hidden
    assert text.splitlines() == sorted(text.splitlines(), key=lambda line: line.split("--")[1])


def test_known_duration_defaults_are_gos() -> None:
    assert {text: parse_seconds(text) for text in _DEFAULT_SECONDS} == _DEFAULT_SECONDS


@pytest.mark.parametrize(("argv", "path", "rest"), [
    (["template", "r", "c"], "deploy-runner template", ["r", "c"]),
    (["-n", "ns", "--debug", "install", "r", "c"], "deploy-runner install", ["-n", "ns", "--debug", "r", "c"]),
    (["--kubeconfig", "template", "lint", "."], "deploy-runner lint", ["--kubeconfig", "template", "."]),
    (["show", "-n", "x", "values", "c"], "deploy-runner show values", ["-n", "x", "c"]),
    (["get", "values", "r", "--revision", "2"], "deploy-runner get values", ["r", "--revision", "2"]),
    (["inspect", "chart", "c"], "deploy-runner show chart", ["c"]),
])
def test_the_command_is_found_among_flags(argv: list[str], path: str, rest: list[str]) -> None:
    command, remaining = find(root_command(), argv)
    assert (command.path(), remaining) == (path, rest)


def test_strip_flags_skips_flag_values_as_cobra_does() -> None:
    flags = root_command().persistent
    assert strip_flags(["-n", "x", "install", "--debug", "a"], flags) == ["install", "a"]
    assert strip_flags(["--unknown", "x", "y"], flags) == ["y"]  # an unknown flag takes a value
    assert strip_flags(["--unknown", "x"], flags) == []  # ... and the last argument ends the search


@pytest.mark.parametrize(("a", "b", "distance"), [("", "abc", 3), ("templte", "template", 1),
                                                  ("lst", "list", 1), ("kitten", "sitting", 3)])
def test_levenshtein(a: str, b: str, distance: int) -> None:
    assert levenshtein(a, b) == distance
