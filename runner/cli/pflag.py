"""spf13/pflag as Helm 4.1.4's commands use it: typed flags, GNU-style parsing, pflag's words.

- `--name value`, `--name=value`, `-n value`, `-nvalue`, `-n=value`; short flags
  combine (`-ab`); a flag with a NoOptDefVal (bool flags, `--dry-run`, `--wait`)
  takes a value only after `=`; flags and arguments mix; `--` ends the flags.
- A flag's value is whatever the next argument is, even one that starts with `-`.
- Errors are pflag's: `unknown flag: --x`, `unknown shorthand flag: 'x' in -x`,
  `flag needs an argument: --x` / `'x' in -x`, `bad flag syntax: ---x`, and
  `invalid argument "V" for "-s, --long" flag: <the value's reason>`.
- Usage lines (`FlagUsages`) are laid out as pflag lays them out, so `--help`
  reads as Helm's.

A flag's value lives in a Value (bool, string, int, float32, duration, string
array, string slice, string-to-string map, or a custom Set); `FlagSet.parse`
fills a Namespace with every flag's value under its `dest` and returns the
positional arguments.
"""

from __future__ import annotations

from collections.abc import Callable

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any


class FlagError(RunnerError):
    """A command line pflag refuses; Helm prints `Error: <message>` and exits 1."""


class HelpRequested(Exception):  # noqa: N818 - pflag's ErrHelp
    """`-h`/`--help` was given: the command's help is printed instead of running it."""


class Namespace:
    """The parsed flags as attributes (their dest names), like argparse's Namespace."""

    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"Namespace({', '.join(f'{k}={v!r}' for k, v in sorted(vars(self).items()))})"


# ----------------------------------------------------------------------- values


class Value:
    """pflag's Value: `set` parses one occurrence; `value` is what the command reads."""

    type_name = "string"

    def __init__(self, default: Any) -> None:
        self.value = default

    def set(self, text: str) -> None:
        self.value = text

    def default_text(self) -> str:
        """DefValue: the default as pflag prints it in `(default ...)`."""
        return str(self.value)

    def is_zero(self, text: str) -> bool:
        """defaultIsZeroValue: a zero default is not shown in usage."""
        return text in ("false", "<nil>", "", "0")


class BoolValue(Value):
    type_name = "bool"

    def set(self, text: str) -> None:
        self.value = parse_bool(text)

    def default_text(self) -> str:
        return "true" if self.value else "false"

    def is_zero(self, text: str) -> bool:
        return text == "false"


class IntValue(Value):
    """int (strconv.ParseInt(s, 0, 64)), or uint (ParseUint)."""

    type_name = "int"

    def set(self, text: str) -> None:
        from runner.golang import strconv as gocast

        parse = gocast.parse_uint if self.type_name == "uint" else gocast.parse_int
        try:
            self.value = parse(text, 0, 64)
        except gocast.NumError as err:
            raise ValueError(str(err)) from None

    def is_zero(self, text: str) -> bool:
        return text == "0"


class UintValue(IntValue):
    type_name = "uint"


class Float32Value(Value):
    type_name = "float32"

    def set(self, text: str) -> None:
        from runner.golang.strconv import NumError, parse_float

        try:
            self.value = parse_float(text)
        except NumError as err:
            raise ValueError(str(err)) from None

    def default_text(self) -> str:
        return format(self.value, "g") if self.value else "0"


class DurationValue(Value):
    """time.Duration, kept in seconds (Go's ParseDuration; pflag's error words)."""

    type_name = "duration"

    def __init__(self, default: str) -> None:
        self.text = default
        # The defaults Helm's flags use, known without importing the time module's parser
        # (it imports datetime: ~1 ms on a `template` run, which parses no duration).
        known = _DEFAULT_SECONDS.get(default)
        super().__init__(parse_seconds(default) if known is None else known)

    def set(self, text: str) -> None:
        self.value = parse_seconds(text)

    def default_text(self) -> str:
        return self.text

    def is_zero(self, text: str) -> bool:
        return text in ("0", "0s")


_DEFAULT_SECONDS = {"0s": 0.0, "2m0s": 120.0, "5m0s": 300.0}


class StringArrayValue(Value):
    """stringArray: each occurrence one item, as typed."""

    type_name = "stringArray"

    def __init__(self, default: list[str] | None = None) -> None:
        super().__init__(list(default or ()))
        self.changed = False

    def set(self, text: str) -> None:
        self.value = [*self.value, text] if self.changed else [text]
        self.changed = True

    def default_text(self) -> str:
        return "[" + ",".join(self.value) + "]"

    def is_zero(self, text: str) -> bool:
        return text == "[]"


class StringSliceValue(StringArrayValue):
    """stringSlice: each occurrence a CSV record (`-f a.yaml,b.yaml` is two files)."""

    type_name = "stringSlice"

    def set(self, text: str) -> None:
        items = read_csv(text)
        self.value = [*self.value, *items] if self.changed else items
        self.changed = True


class StringToStringValue(Value):
    """stringToString: `k=v` pairs in CSV records; later occurrences add to the first."""

    type_name = "stringToString"

    def __init__(self) -> None:
        super().__init__({})
        self.changed = False

    def set(self, text: str) -> None:
        equals = text.count("=")
        if equals == 0:
            raise ValueError(f"{text} must be formatted as key=value")
        # One `=`: the whole text is one pair (`a=b,c` is a: "b,c"); more: a CSV record.
        items = [text.strip('"')] if equals == 1 else read_csv(text)
        pairs: dict[str, str] = {}
        for pair in items:
            key, sep, value = pair.partition("=")
            if not sep:
                raise ValueError(f"{pair} must be formatted as key=value")
            pairs[key] = value
        self.value = {**self.value, **pairs} if self.changed else pairs
        self.changed = True

    def default_text(self) -> str:
        return "[" + ",".join(f"{k}={v}" for k, v in sorted(self.value.items())) + "]"


class FuncValue(Value):
    """A flag whose Set is a function (Helm's custom Values): `setter(text, value)`
    returns the new value or raises ValueError/RunnerError with the reason."""

    def __init__(self, type_name: str, default: Any, setter: Callable[[str, Any], Any],
                 default_text: str = "") -> None:
        super().__init__(default)
        self.type_name = type_name
        self.setter = setter
        self.shown_default = default_text

    def set(self, text: str) -> None:
        self.value = self.setter(text, self.value)

    def default_text(self) -> str:
        return self.shown_default


def parse_bool(text: str) -> bool:
    """strconv.ParseBool."""
    if text in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if text in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise ValueError(f"strconv.ParseBool: parsing {go_quote(text)}: invalid syntax")


def parse_seconds(text: str) -> float:
    """time.ParseDuration in seconds; ValueError with Go's message."""
    from runner.golang.time import parse_duration

    return parse_duration(text) / 1e9


def read_csv(value: str) -> list[str]:
    """pflag readAsCSV: encoding/csv's first record of `value` ([] when empty)."""
    if value == "":
        return []
    if not any(special in value for special in '"\r\n\0'):
        return value.split(",")  # what csv reads from a plain line, without importing it (~0.5 ms)
    import csv

    return next(csv.reader([value]), [])


def go_quote(text: str) -> str:
    """strconv.Quote (Go's %q of a string)."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    from runner.golang.strconv import quote

    return quote(text)


def _quote_byte(ch: str) -> str:
    """Go's %q of one byte of a short-flag group: 'x'."""
    if ch in "'\\":
        return f"'\\{ch}'"
    if ch.isascii() and ch.isprintable():
        return f"'{ch}'"
    from runner.golang.strconv import quote_rune

    return quote_rune(ord(ch))


# ------------------------------------------------------------------------ flags


class Flag:
    """One flag: its names, usage text, value and where the parsed value goes."""

    __slots__ = ("name", "shorthand", "usage", "value", "dest", "no_opt", "hidden",
                 "deprecated", "shown_default")

    def __init__(self, name: str, shorthand: str, usage: str, value: Value, dest: str,
                 no_opt: str = "", hidden: bool = False, deprecated: str = "") -> None:
        self.name = name
        self.shorthand = shorthand
        self.usage = usage
        self.value = value
        self.dest = dest
        self.no_opt = no_opt  # NoOptDefVal: the value of `--name` without `=value`
        self.hidden = hidden
        self.deprecated = deprecated
        # DefValue, as defined (a value computed from the environment: when shown)
        self.shown_default: str | Callable[[], str] = getattr(value, "shown", None) or value.default_text()

    def spelled(self) -> str:
        """The flag's name in pflag's `invalid argument` message: `-s, --long` or `--long`."""
        return f"-{self.shorthand}, --{self.name}" if self.shorthand else f"--{self.name}"


class FlagSet:
    """Flags by long name and by shorthand, parsed as pflag parses a command line."""

    def __init__(self) -> None:
        self.flags: dict[str, Flag] = {}
        self.shorthands: dict[str, Flag] = {}

    def add(self, name: str, value: Value, usage: str, *, short: str = "", dest: str = "",
            no_opt: str = "", hidden: bool = False, deprecated: str = "") -> Flag:
        flag = Flag(name, short, usage, value, dest or name.replace("-", "_"),
                    "true" if isinstance(value, BoolValue) and not no_opt else no_opt,
                    hidden, deprecated)
        self.flags[name] = flag
        if short:
            self.shorthands[short] = flag
        return flag

    # The shapes Helm's commands declare, named as pflag's FlagSet methods.

    def bool(self, name: str, usage: str, default: bool = False, **kw: Any) -> Flag:
        return self.add(name, BoolValue(default), usage, **kw)

    def string(self, name: str, usage: str, default: str = "", **kw: Any) -> Flag:
        return self.add(name, Value(default), usage, **kw)

    def int(self, name: str, usage: str, default: int = 0, **kw: Any) -> Flag:
        return self.add(name, IntValue(default), usage, **kw)

    def uint(self, name: str, usage: str, default: int = 0, **kw: Any) -> Flag:
        return self.add(name, UintValue(default), usage, **kw)

    def float32(self, name: str, usage: str, default: float = 0.0, **kw: Any) -> Flag:
        return self.add(name, Float32Value(default), usage, **kw)

    def duration(self, name: str, usage: str, default: str = "0s", **kw: Any) -> Flag:
        return self.add(name, DurationValue(default), usage, **kw)

    def string_array(self, name: str, usage: str, default: list[str] | None = None, **kw: Any) -> Flag:
        return self.add(name, StringArrayValue(default), usage, **kw)

    def string_slice(self, name: str, usage: str, **kw: Any) -> Flag:
        return self.add(name, StringSliceValue(), usage, **kw)

    def string_to_string(self, name: str, usage: str, **kw: Any) -> Flag:
        return self.add(name, StringToStringValue(), usage, **kw)

    def merged(self, other: FlagSet) -> FlagSet:
        """This set with `other`'s flags that it does not define (cobra's persistent flags)."""
        merged = FlagSet()
        merged.flags = {**other.flags, **self.flags}
        merged.shorthands = {**other.shorthands, **self.shorthands}
        return merged

    def takes_value(self, name: str, *, short: bool) -> bool:
        """Whether `--name`/`-x` alone consumes the next argument (cobra's stripFlags:
        unknown flags are assumed to)."""
        flag = (self.shorthands if short else self.flags).get(name)
        return flag is None or not flag.no_opt

    # -------------------------------------------------------------- parsing

    def parse(self, args: list[str], on_deprecated: Callable[[str], None]) -> tuple[Namespace, list[str]]:
        """pflag's FlagSet.Parse (interspersed): the values and the positional arguments.
        Raises FlagError (pflag's message), HelpRequested for -h/--help."""
        positional: list[str] = []
        changed: dict[str, None] = {}  # the flags given, in the order they were last set
        rest = list(args)
        while rest:
            arg = rest.pop(0)
            if len(arg) < 2 or arg[0] != "-":
                positional.append(arg)
            elif arg == "--":
                positional.extend(rest)
                break
            elif arg[1] == "-":
                self._long(arg, rest, changed, on_deprecated)
            else:
                self._shorts(arg, rest, changed, on_deprecated)
        # Flags sharing a destination (--atomic and --rollback-on-failure, --deployed-depth
        # and --release-history-max) are Go flags bound to one variable: the one set last
        # wins, a flag not given never overrides one that was.
        last = {name: index for index, name in enumerate(changed)}
        ordered = sorted(self.flags.values(), key=lambda flag: last.get(flag.name, -1))
        values = {flag.dest: flag.value.value for flag in ordered}
        return Namespace(**values, changed=set(changed)), positional

    def _long(self, arg: str, rest: list[str], changed: dict[str, None], on_deprecated: Callable[[str], None]) -> None:
        name = arg[2:]
        if not name or name[0] in "-=":
            raise FlagError(f"bad flag syntax: {arg}")
        name, has_value, value = name.partition("=")
        flag = self.flags.get(name)
        if flag is None:
            if name == "help":
                raise HelpRequested
            raise FlagError(f"unknown flag: --{name}")
        if not has_value:
            if flag.no_opt:
                value = flag.no_opt
            elif rest:
                value = rest.pop(0)
            else:
                raise FlagError(f"flag needs an argument: {arg}")
        self._set(flag, value, changed, on_deprecated)

    def _shorts(self, arg: str, rest: list[str], changed: dict[str, None], on_deprecated: Callable[[str], None]) -> None:
        shorthands = arg[1:]
        while shorthands:
            c, shorthands = shorthands[0], shorthands[1:]
            flag = self.shorthands.get(c)
            if flag is None:
                if c == "h":
                    raise HelpRequested
                raise FlagError(f"unknown shorthand flag: {_quote_byte(c)} in {arg}")
            if shorthands[:1] == "=" and len(shorthands) > 1:  # -f=value
                value, shorthands = shorthands[1:], ""
            elif flag.no_opt:
                value = flag.no_opt
            elif shorthands:  # -fvalue
                value, shorthands = shorthands, ""
            elif rest:
                value = rest.pop(0)
            else:
                raise FlagError(f"flag needs an argument: {_quote_byte(c)} in {arg}")
            self._set(flag, value, changed, on_deprecated)

    def _set(self, flag: Flag, value: str, changed: dict[str, None], on_deprecated: Callable[[str], None]) -> None:
        try:
            flag.value.set(value)
        except (ValueError, RunnerError) as err:
            raise FlagError(f"invalid argument {go_quote(value)} for {go_quote(flag.spelled())} flag: {err}") from None
        changed.pop(flag.name, None)
        changed[flag.name] = None
        if flag.deprecated:
            on_deprecated(f"Flag --{flag.name} has been deprecated, {flag.deprecated}")

    # ---------------------------------------------------------------- usage

    def usages(self, names: Iterable[str] | None = None) -> str:
        """FlagUsages: one line per visible flag, sorted by name, descriptions aligned."""
        chosen = [self.flags[n] for n in sorted(self.flags if names is None else names)]
        lines: list[tuple[str, str]] = []
        for flag in chosen:
            if flag.hidden:
                continue
            head = f"  -{flag.shorthand}, --{flag.name}" if flag.shorthand else f"      --{flag.name}"
            head += _varname(flag) + _no_opt_text(flag)
            usage = flag.usage
            shown = flag.shown_default if isinstance(flag.shown_default, str) else flag.shown_default()
            if not flag.value.is_zero(shown):
                usage += f' (default "{shown}")' if flag.value.type_name == "string" else f" (default {shown})"
            if flag.deprecated:
                usage += f" (DEPRECATED: {flag.deprecated})"
            lines.append((head, usage))
        width = max((len(head) for head, _ in lines), default=0)
        return "".join(f"{head.ljust(width)}   {usage}\n" for head, usage in lines)


_VARNAMES = {"bool": "", "float64": "float", "int64": "int", "stringSlice": "strings"}


def _varname(flag: Flag) -> str:
    name = _VARNAMES.get(flag.value.type_name, flag.value.type_name)
    return f" {name}" if name else ""


def _no_opt_text(flag: Flag) -> str:
    if not flag.no_opt:
        return ""
    kind = flag.value.type_name
    if kind == "string":
        return f'[="{flag.no_opt}"]'
    if kind == "bool":
        return "" if flag.no_opt == "true" else f"[={flag.no_opt}]"
    return f"[={flag.no_opt}]"
