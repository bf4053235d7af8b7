"""User-supplied values: -f files and the --set family, merged as Helm's values.Options does.

Precedence (pkg/cli/values/options.go MergeValues): every -f file in order
(each may hold several YAML documents; `-` reads stdin), then --set-json,
--set, --set-string, --set-file and --set-literal, each flag's arguments in
order; later writes win.

deploy-runner's --secret-values files are values too, read as -f files right after
them; what they hold and what --set-file reads is secret: `merge_options` hands it to
a `secrets` list when given one (for runner.release.redact).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence

from runner.chart.errors import ChartError, ValuesError
from runner.chart.loader import load_values, merge_maps
from runner.errors import RunnerError
from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


class ValueOptions(Record):
    """The values flags of `helm template/install/upgrade`."""

    __slots__ = ("value_files", "set_json", "set", "set_string", "set_file", "set_literal", "secret_files")

    def __init__(self, value_files: Sequence[str] = (), set_json: Sequence[str] = (),
                 set: Sequence[str] = (), set_string: Sequence[str] = (),  # noqa: A002
                 set_file: Sequence[str] = (), set_literal: Sequence[str] = (),
                 secret_files: Sequence[str] = ()) -> None:
        self.value_files = value_files
        self.secret_files = secret_files
        self.set_json = set_json
        self.set = set
        self.set_string = set_string
        self.set_file = set_file
        self.set_literal = set_literal


FileReader = Callable[[str], bytes]


def read_values_file(name: str) -> bytes:
    """Helm's readFile: `-` is stdin, http(s) URLs go through the HTTP getter, else a file."""
    if name.strip() == "-":
        return sys.stdin.buffer.read()
    if name.startswith(("http://", "https://")):
        from runner.chart.sources.http import get

        try:
            return get(name)
        except RunnerError as exc:
            raise ValuesError(str(exc)) from None
    if name == "":  # Path("") is ".", but Go's os.ReadFile("") opens nothing
        raise ValuesError("open : no such file or directory")
    try:
        with open(name, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise ValuesError(f"open {name}: no such file or directory") from None
    except IsADirectoryError:
        raise ValuesError(f"read {name}: is a directory") from None
    except OSError as exc:
        reason = exc.strerror.lower() if exc.strerror else str(exc)
        raise ValuesError(f"open {name}: {reason}") from None


def merge_options(options: ValueOptions, read: FileReader = read_values_file,
                  secrets: list[Any] | None = None) -> dict[str, Any]:
    """values.Options.MergeValues: one user-values map from every flag. `secrets` (when
    given) receives the values of --secret-values files and the --set-file contents."""
    base: dict[str, Any] = {}
    for name in options.value_files:
        base = merge_maps(base, _values_file(name, read))
    for name in options.secret_files:
        current = _values_file(name, read)
        if secrets is not None:
            secrets.append(current)
        base = merge_maps(base, current)
    for value in options.set_json:
        base = _apply_set_json(value, base)
    _apply(options.set, base, "typed", "--set")
    _apply(options.set_string, base, "string", "--set-string")
    _apply(
        options.set_file,
        base,
        "file",
        "--set-file",
        lambda path: _secret_text(read(path).decode("utf-8", "replace"), secrets),
    )
    _apply(options.set_literal, base, "literal", "--set-literal")
    return base


def _values_file(name: str, read: FileReader) -> dict[str, Any]:
    try:
        return load_values(read(name), name, remember=False)
    except ChartError as exc:
        raise ValuesError(f"failed to parse {name}: {_strip_prefix(str(exc), name)}") from None


def _secret_text(text: str, secrets: list[Any] | None) -> str:
    if secrets is not None:
        secrets.append(text)
    return text


def _strip_prefix(message: str, name: str) -> str:
    """load_values names the file itself; Helm's -f error names it once, in front."""
    return message.removeprefix(f"cannot load {name}: ")


def _apply_set_json(value: str, base: dict[str, Any]) -> dict[str, Any]:
    from runner.chart import strvals  # only with --set-json; it imports json

    trimmed = value.strip()
    if trimmed.startswith("{"):
        from runner.encoding.gojson import UnmarshalError, unmarshal

        try:
            parsed = unmarshal(trimmed)  # Go's rules: numbers float64, no NaN, 10000 deep at most
        except UnmarshalError:
            raise ValuesError(f"failed parsing --set-json data JSON: {value}") from None
        if not isinstance(parsed, dict):
            raise ValuesError(f"failed parsing --set-json data JSON: {value}")
        return merge_maps(base, parsed)
    try:
        strvals.parse_into(value, base, "json")
    except strvals.StrvalsError:
        raise ValuesError(f"failed parsing --set-json data {value}") from None
    return base


def _apply(
    values: Sequence[str],
    base: dict[str, Any],
    mode: str,
    flag: str,
    reader: Callable[[str], Any] | None = None,
) -> None:
    if not values:
        return
    from runner.chart import strvals  # only with --set flags; it imports json

    for value in values:
        try:
            strvals.parse_into(value, base, mode, reader)
        except (strvals.StrvalsError, ValuesError) as exc:
            raise ValuesError(f"failed parsing {flag} data: {exc}") from None


def merge_user_values(
    value_files: Sequence[str],
    sets: Mapping[str, Sequence[str]],
    read: FileReader = read_values_file,
    secrets: list[Any] | None = None,
) -> dict[str, Any]:
    """merge_options from CLI-shaped input: `sets` maps flag names ("set", "set-json", ...,
    and "secret-values") to arguments."""
    options = ValueOptions(
        value_files=list(value_files),
        set_json=list(sets.get("set-json", ())),
        set=list(sets.get("set", ())),
        set_string=list(sets.get("set-string", ())),
        set_file=list(sets.get("set-file", ())),
        set_literal=list(sets.get("set-literal", ())),
        secret_files=list(sets.get("secret-values", ())),
    )
    return merge_options(options, read, secrets)
