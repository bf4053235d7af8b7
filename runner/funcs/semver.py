"""Template functions: semver and semverCompare (Sprig's semver.go) on a port
of Masterminds/semver v3: NewVersion's coercion ("v1", "1.2", leading zeros),
Compare's prerelease ordering, and NewConstraint / Check with its operators
(= != > < >= => <= =< ~ ~> ^), x/X/* wildcards, hyphen ranges, `,`/space AND
groups and `||` OR groups. Error texts are the package's.

Plain classes and regexes compiled on first use rather than dataclasses and
module-level re.compile: a render that calls semverCompare pays ~2 ms less
to import this module.
"""

from __future__ import annotations

import functools
import re

from runner.funcs.registry import FuncError, GoFunc, gofunc
from runner.template.gotypes import Uint64

_UINT64_MAX = (1 << 64) - 1



@functools.cache
def _loose_version() -> re.Pattern[str]:
    """looseSemVerRegex: lets invalid versions through far enough for detailed checks."""
    return re.compile(
        r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
        r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
        r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    )

_NUM = frozenset("0123456789")
_ALLOWED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-0123456789")

ERR_INVALID_SEMVER = "invalid semantic version"
ERR_INVALID_METADATA = "invalid build string"
ERR_INVALID_PRERELEASE = "invalid prerelease string"
ERR_SEGMENT_STARTS_ZERO = "version segment starts with 0"


class SemverError(ValueError):
    """A Masterminds/semver error; str() is the Go error text."""


def _parse_uint(text: str) -> int:
    """strconv.ParseUint(text, 10, 64) with its range error text."""
    value = int(text)
    if value > _UINT64_MAX:
        raise SemverError(
            f'error parsing version segment: strconv.ParseUint: parsing "{text}": value out of range'
        )
    return value


def _validate_prerelease(pre: str) -> None:
    for part in pre.split("."):
        if part == "":
            raise SemverError(ERR_INVALID_PRERELEASE)
        if set(part) <= _NUM:
            if len(part) > 1 and part[0] == "0":
                raise SemverError(ERR_SEGMENT_STARTS_ZERO)
        elif not set(part) <= _ALLOWED:
            raise SemverError(ERR_INVALID_PRERELEASE)


def _validate_metadata(build: str) -> None:
    for part in build.split("."):
        if part == "" or not set(part) <= _ALLOWED:
            raise SemverError(ERR_INVALID_METADATA)


class _VersionData:
    """A semantic version's parts and the value-receiver methods of semver.Version."""

    def __init__(self, major: int, minor: int, patch: int, pre: str = "", build: str = "",
                 original: str = "") -> None:
        self.major = major
        self.minor = minor
        self.patch = patch
        self.pre = pre
        self.build = build
        self.original = original

    # --- the Go methods templates can call -----------------------------------
    def Major(self) -> Uint64:  # noqa: N802 - Go method names
        return Uint64(self.major)

    def Minor(self) -> Uint64:  # noqa: N802
        return Uint64(self.minor)

    def Patch(self) -> Uint64:  # noqa: N802
        return Uint64(self.patch)

    def Prerelease(self) -> str:  # noqa: N802
        return self.pre

    def Metadata(self) -> str:  # noqa: N802
        return self.build

    def String(self) -> str:  # noqa: N802
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            text += "-" + self.pre
        if self.build:
            text += "+" + self.build
        return text

    def IncPatch(self) -> VersionValue:  # noqa: N802
        if self.pre:
            return self._next(self.major, self.minor, self.patch)
        return self._next(self.major, self.minor, self.patch + 1)

    def IncMinor(self) -> VersionValue:  # noqa: N802
        return self._next(self.major, self.minor + 1, 0)

    def IncMajor(self) -> VersionValue:  # noqa: N802
        return self._next(self.major + 1, 0, 0)

    def SetPrerelease(self, prerelease: str) -> VersionValue:  # noqa: N802
        if prerelease:
            _validate_prerelease(prerelease)
        return self._with(self.major, self.minor, self.patch, prerelease, self.build)

    def SetMetadata(self, metadata: str) -> VersionValue:  # noqa: N802
        if metadata:
            _validate_metadata(metadata)
        return self._with(self.major, self.minor, self.patch, self.pre, metadata)

    def _next(self, major: int, minor: int, patch: int) -> VersionValue:
        return self._with(major, minor, patch, "", "")

    def _with(self, major: int, minor: int, patch: int, pre: str, build: str) -> VersionValue:
        """A semver.Version value whose Original keeps only the 'v' prefix."""
        made = VersionValue(major, minor, patch, pre, build)
        made.original = ("v" if self.original.startswith("v") else "") + made.String()
        return made

    def __str__(self) -> str:
        return self.String()

    def __go_json__(self) -> str:
        return self.String()  # Version.MarshalJSON

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.String()!r})"


class Version(_VersionData):
    """*semver.Version (what `semver` returns): the value methods plus those
    Masterminds/semver v3.4.0 declares on the pointer (Original, Compare, ...)."""

    go_type = "*semver.Version"
    go_kind = "ptr"

    def Original(self) -> str:  # noqa: N802
        return self.original

    def Compare(self, other: Version) -> int:  # noqa: N802
        return compare(self, other)

    def LessThan(self, other: Version) -> bool:  # noqa: N802
        return compare(self, other) < 0

    def LessThanEqual(self, other: Version) -> bool:  # noqa: N802
        return compare(self, other) <= 0

    def GreaterThan(self, other: Version) -> bool:  # noqa: N802
        return compare(self, other) > 0

    def GreaterThanEqual(self, other: Version) -> bool:  # noqa: N802
        return compare(self, other) >= 0

    def Equal(self, other: Version) -> bool:  # noqa: N802
        return other is self or compare(self, other) == 0


class VersionValue(_VersionData):
    """A semver.Version value (what IncPatch and friends return): templates
    reach only its value-receiver methods, as in Go."""

    go_type = "semver.Version"
    go_kind = "struct"


def _wrap_fallible(name: str) -> None:
    """SetPrerelease / SetMetadata return (Version, error): SemverError becomes FuncError."""
    method = getattr(_VersionData, name)

    def call(self: _VersionData, value: str) -> VersionValue:
        try:
            return method(self, value)
        except SemverError as err:
            raise FuncError(str(err)) from None

    call.__name__ = name
    call.__gofunc__ = GoFunc(name, call, ("string",), returns="semver.Version", fallible=True)  # type: ignore[attr-defined]
    setattr(_VersionData, name, call)


def _declare_version_methods() -> None:
    """Give the comparison methods their Go signatures (o *Version) for argument checks."""
    returns = {"Compare": "int"}
    for name in ("Compare", "LessThan", "LessThanEqual", "GreaterThan", "GreaterThanEqual", "Equal"):
        method = getattr(Version, name)
        method.__gofunc__ = GoFunc(name, method, ("*semver.Version",), returns=returns.get(name, "bool"))
    for name in ("Major", "Minor", "Patch"):
        method = getattr(_VersionData, name)
        method.__gofunc__ = GoFunc(name, method, (), returns="uint64")


_declare_version_methods()
_wrap_fallible("SetPrerelease")
_wrap_fallible("SetMetadata")


def new_version(text: str) -> Version:
    """semver.NewVersion with CoerceNewVersion (the default): loose parsing."""
    match = _loose_version().fullmatch(text)
    if match is None:
        raise SemverError(ERR_INVALID_SEMVER)
    major = _parse_uint(match.group(1))
    minor = _parse_uint(match.group(2)[1:]) if match.group(2) else 0
    patch = _parse_uint(match.group(3)[1:]) if match.group(3) else 0
    pre = match.group(5) or ""
    build = match.group(8) or ""
    if pre:
        _validate_prerelease(pre)
    if build:
        _validate_metadata(build)
    return Version(major, minor, patch, pre, build, text)


def _compare_pre_part(s: str, o: str) -> int:
    if s == o:
        return 0
    if s == "":
        return -1
    if o == "":
        return 1
    s_num = s.isdigit() and s.isascii() and int(s) <= _UINT64_MAX
    o_num = o.isdigit() and o.isascii() and int(o) <= _UINT64_MAX
    if not s_num and not o_num:
        return 1 if s > o else -1
    if not o_num:
        return -1  # numbers sort before identifiers
    if not s_num:
        return 1
    return 1 if int(s) > int(o) else -1


def compare_prerelease(s: str, o: str) -> int:
    s_parts, o_parts = s.split("."), o.split(".")
    for i in range(max(len(s_parts), len(o_parts))):
        s_part = s_parts[i] if i < len(s_parts) else ""
        o_part = o_parts[i] if i < len(o_parts) else ""
        result = _compare_pre_part(s_part, o_part)
        if result:
            return result
    return 0


def compare(v: _VersionData, o: _VersionData) -> int:
    """Version.Compare: major, minor, patch, then prerelease; build ignored."""
    for a, b in ((v.major, o.major), (v.minor, o.minor), (v.patch, o.patch)):
        if a != b:
            return -1 if a < b else 1
    if v.pre == o.pre == "":
        return 0
    if v.pre == "":
        return 1
    if o.pre == "":
        return -1
    return compare_prerelease(v.pre, o.pre)


# --- constraints --------------------------------------------------------------

_CV = (
    r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?"
    r"(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
    r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
)
_OPS = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^"
# Go's \s in these ASCII patterns is [\t\n\f\r ].
_WS = r"[\t\n\f\r ]"


class _Patterns:
    """The constraint regexes."""

    __slots__ = ("constraint", "range", "find", "valid")

    def __init__(self) -> None:
        self.constraint = re.compile(rf"^{_WS}*({_OPS}){_WS}*({_CV}){_WS}*$")
        self.range = re.compile(rf"{_WS}*({_CV}){_WS}+-{_WS}+({_CV}){_WS}*")
        self.find = re.compile(rf"({_OPS}){_WS}*({_CV})")
        self.valid = re.compile(
            rf"^({_WS}*({_OPS}){_WS}*({_CV}){_WS}*)((?:{_WS}+|,{_WS}*)({_OPS}){_WS}*({_CV}){_WS}*)*$"
        )


@functools.cache
def _patterns() -> _Patterns:
    """The constraint regexes, compiled on first use."""
    return _Patterns()


def _is_x(text: str) -> bool:
    return text in ("x", "*", "X")


class _Atom:
    """One constraint: operator, its text, and which version parts were wildcards."""

    __slots__ = ("op", "orig", "con", "dirty", "minor_dirty", "patch_dirty")

    def __init__(self, op: str, orig: str, con: Version, dirty: bool, minor_dirty: bool,
                 patch_dirty: bool) -> None:
        self.op = op
        self.orig = orig
        self.con = con
        self.dirty = dirty
        self.minor_dirty = minor_dirty
        self.patch_dirty = patch_dirty


def _parse_atom(text: str) -> _Atom:
    if not text:
        # An empty constraint is `*`: any release version.
        return _Atom("", text, Version(0, 0, 0, "", "", "0.0.0"), True, False, False)
    match = _patterns().constraint.match(text)
    if match is None:
        raise SemverError(f"improper constraint: {text}")
    op, orig = match.group(1), match.group(2)
    major, minor, patch = match.group(3), match.group(4) or "", match.group(5) or ""
    pre = match.group(6) or ""
    dirty = minor_dirty = patch_dirty = False
    version_text = orig
    if _is_x(major):
        version_text, dirty = f"0.0.0{pre}", True
    elif minor == "" or _is_x(minor[1:]):
        version_text, dirty, minor_dirty = f"{major}.0.0{pre}", True, True
    elif patch == "" or _is_x(patch[1:]):
        version_text, dirty, patch_dirty = f"{major}{minor}.0{pre}", True, True
    try:
        con = new_version(version_text)
    except SemverError:
        raise SemverError("constraint parser error") from None
    return _Atom(op, orig, con, dirty, minor_dirty, patch_dirty)


def _rewrite_range(text: str) -> str:
    """Hyphen ranges "1 - 2" become ">= 1, <= 2 "."""
    if "-" not in text:
        return text
    result = text
    for match in _patterns().range.finditer(text):
        replacement = f">= {match.group(1)}, <= {match.group(11)} "
        result = result.replace(match.group(0), replacement, 1)
    return result


class Constraints:
    """semver.Constraints: OR groups of AND-ed atoms."""

    __slots__ = ("groups", "contains_pre")

    def __init__(self, groups: tuple[tuple[_Atom, ...], ...], contains_pre: tuple[bool, ...]) -> None:
        self.groups = groups
        self.contains_pre = contains_pre

    def check(self, version: Version) -> bool:
        for atoms, include_pre in zip(self.groups, self.contains_pre, strict=True):
            if all(_matches(atom, version, include_pre) for atom in atoms):
                return True
        return False


def new_constraint(text: str) -> Constraints:
    """semver.NewConstraint."""
    text = _rewrite_range(text)
    ors = text.split("||")
    groups: list[tuple[_Atom, ...]] = []
    contains_pre: list[bool] = []
    for group in ors:
        if not _patterns().valid.match(group):
            raise SemverError(f"improper constraint: {group}")
        found = [m.group(0) for m in _patterns().find.finditer(group)] or [group]
        atoms = tuple(_parse_atom(atom) for atom in found)
        groups.append(atoms)
        contains_pre.append(any(atom.con.pre for atom in atoms))
    return Constraints(tuple(groups), tuple(contains_pre))


def _matches(atom: _Atom, v: _VersionData, include_pre: bool) -> bool:
    if v.pre and not include_pre:
        return False  # prereleases only match groups that name one
    return _OPERATORS[atom.op](atom, v)


def _not_equal(c: _Atom, v: Version) -> bool:
    if c.dirty:
        if c.con.major != v.major:
            return True
        if c.con.minor != v.minor and not c.minor_dirty:
            return True
        if c.minor_dirty:
            return False
        if c.con.patch != v.patch and not c.patch_dirty:
            return True
        if c.patch_dirty:
            if v.pre or c.con.pre:
                return compare_prerelease(v.pre, c.con.pre) != 0
            return False
    return compare(v, c.con) != 0


def _greater_than(c: _Atom, v: Version) -> bool:
    if not c.dirty:
        return compare(v, c.con) == 1
    if v.major > c.con.major:
        return True
    if v.major < c.con.major or c.minor_dirty:
        return False
    if c.patch_dirty:
        return v.minor > c.con.minor
    return compare(v, c.con) == 1


def _less_than_equal(c: _Atom, v: Version) -> bool:
    if not c.dirty:
        return compare(v, c.con) <= 0
    if v.major > c.con.major:
        return False
    return not (v.major == c.con.major and v.minor > c.con.minor and not c.minor_dirty)


def _tilde(c: _Atom, v: Version) -> bool:
    if compare(v, c.con) < 0:
        return False
    con = c.con
    if con.major == con.minor == con.patch == 0 and not c.minor_dirty and not c.patch_dirty:
        return True  # ~0.0.0 accepts everything
    if v.major != con.major:
        return False
    return not (v.minor != con.minor and not c.minor_dirty)


def _tilde_or_equal(c: _Atom, v: Version) -> bool:
    if c.dirty:
        return _tilde(c, v)
    return compare(v, c.con) == 0


def _caret(c: _Atom, v: Version) -> bool:
    con = c.con
    if compare(v, con) < 0:
        return False
    if con.major > 0 or c.minor_dirty:
        return v.major == con.major
    if v.major > 0:
        return False
    if con.minor > 0 or c.patch_dirty:
        return v.minor == con.minor
    if v.minor > 0:
        return False
    return con.patch == v.patch


_OPERATORS = {
    "": _tilde_or_equal,
    "=": _tilde_or_equal,
    "!=": _not_equal,
    ">": _greater_than,
    "<": lambda c, v: compare(v, c.con) < 0,
    ">=": lambda c, v: compare(v, c.con) >= 0,
    "=>": lambda c, v: compare(v, c.con) >= 0,
    "<=": _less_than_equal,
    "=<": _less_than_equal,
    "~": _tilde,
    "~>": _tilde,
    "^": _caret,
}


# --- the template functions ---------------------------------------------------


@gofunc("semver", ("string",), returns="*semver.Version", fallible=True)
def semver(version: str) -> Version:
    try:
        return new_version(version)
    except SemverError as err:
        raise FuncError(str(err)) from None


@functools.lru_cache(maxsize=512)
def _compare_cached(constraint: str, version: str) -> bool | str:
    """semverCompare's answer, or its error text; charts repeat the same checks."""
    try:
        return new_constraint(constraint).check(new_version(version))
    except SemverError as err:
        return str(err)


@gofunc("semverCompare", ("string", "string"), returns="bool", fallible=True)
def semver_compare(constraint: str, version: str) -> bool:
    result = _compare_cached(constraint, version)
    if isinstance(result, str):
        raise FuncError(result)
    return result
