"""A port of Masterminds/semver v3 (v3.4.0, as Helm 4.1.4 builds with it):
NewVersion's coercion ("v1", "1.2", leading zeros), Compare's prerelease ordering, and NewConstraint / Check with its operators
(= != > < >= => <= =< ~ ~> ^), x/X/* wildcards, hyphen ranges, `,`/space AND
groups and `||` OR groups. Error texts are the package's. Versions carry the
methods templates may call on them (`(semver "1.2.3").Major`), with their Go
signatures.

Charts (Chart.yaml versions, kubeVersion, dependency constraints), repository
indexes, registries and the `semver` / `semverCompare` template functions
(runner.funcs.semver) all use it.

Plain classes rather than dataclasses, and hand-written scanners rather
than Masterminds' regexes: compiling those cost each run that checks a
kubeVersion or calls semverCompare ~5 ms.
"""

from __future__ import annotations

from runner.golang.gofunc import FuncError, GoFunc
from runner.golang.types import Uint64

_UINT64_MAX = (1 << 64) - 1

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


def _is_identifiers(text: str) -> bool:
    """`[0-9A-Za-z-]+(\\.[0-9A-Za-z-]+)*`: the prerelease / build syntax."""
    return all(part and set(part) <= _ALLOWED for part in text.split("."))


def _split_loose(text: str) -> tuple[list[str], str, str] | None:
    """looseSemVerRegex as a full match: `v?N(.N)?(.N)?(-pre)?(+build)?`, as
    (numbers, prerelease, build); None when the text does not match."""
    body = text[1:] if text.startswith("v") else text
    body, plus, build = body.partition("+")
    core, dash, pre = body.partition("-")  # numbers hold no "-": the first starts the prerelease
    if (plus and not _is_identifiers(build)) or (dash and not _is_identifiers(pre)):
        return None
    numbers = core.split(".")
    if len(numbers) > 3 or not all(number and set(number) <= _NUM for number in numbers):
        return None
    return numbers, pre, build


def new_version(text: str) -> Version:
    """semver.NewVersion with CoerceNewVersion (the default): loose parsing."""
    parts = _split_loose(text)
    if parts is None:
        raise SemverError(ERR_INVALID_SEMVER)
    numbers, pre, build = parts
    major, minor, patch = (_parse_uint(number) for number in (*numbers, "0", "0")[:3])
    if pre:
        _validate_prerelease(pre)
    return Version(major, minor, patch, pre, build, text)


def strict_new_version(text: str) -> Version:
    """semver.StrictNewVersion: SemVer 2.0 exactly (MAJOR.MINOR.PATCH, no "v", no leading
    zeros, numbers within uint64), checked by hand as Masterminds does: no regex `$` that
    would let a trailing newline through."""
    if not text:
        raise SemverError("version string empty")
    parts = text.split(".", 2)
    if len(parts) != 3:
        raise SemverError(ERR_INVALID_SEMVER)
    patch, plus, build = parts[2].partition("+")
    if plus:
        _validate_metadata(build)
    patch, dash, pre = patch.partition("-")
    if dash:
        _validate_prerelease(pre)
    numbers = [parts[0], parts[1], patch]
    for number in numbers:
        if not set(number) <= _NUM:  # "" passes here and fails in ParseUint, as in Go
            raise SemverError("invalid characters in version")
        if len(number) > 1 and number[0] == "0":
            raise SemverError(ERR_SEGMENT_STARTS_ZERO)
    major, minor, patch_number = (_parse_uint_strict(number) for number in numbers)
    return Version(major, minor, patch_number, pre, build, text)


def _parse_uint_strict(text: str) -> int:
    """strconv.ParseUint(text, 10, 64) as StrictNewVersion reports it (no prefix)."""
    if not text:
        raise SemverError('strconv.ParseUint: parsing "": invalid syntax')
    if int(text) > _UINT64_MAX:
        raise SemverError(f'strconv.ParseUint: parsing "{text}": value out of range')
    return int(text)


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

# Masterminds' constraint regexes, scanned by hand: compiling them cost a run
# ~5 ms. Their parts use disjoint characters, so where each part ends never
# depends on backtracking, and a greedy scan finds what the regexes find:
#   cvRegex = v?X(.X)?(.X)?(-ID(.ID)*)?(+ID(.ID)*)?   X = [0-9xX*|]+, ID = [0-9A-Za-z-]+
#   an atom = operator, optional space, cvRegex; atoms are parted by space or a comma.
# Go's \s in these ASCII patterns is [\t\n\f\r ].
_SPACE = frozenset("\t\n\f\r ")
_X_CHARS = frozenset("0123456789xX*|")
_OP_CHARS = frozenset("=!<>~^")
_OPS = frozenset(("", "=", "!=", ">", "<", ">=", "=>", "<=", "=<", "~", "~>", "^"))


def _skip(text: str, at: int, chars: frozenset[str]) -> int:
    """The end of the run of `chars` starting at `at`."""
    while at < len(text) and text[at] in chars:
        at += 1
    return at


def _run_follows(text: str, at: int, lead: str, chars: frozenset[str]) -> bool:
    """Whether `lead` and at least one of `chars` start at `at`."""
    return text.startswith(lead, at) and at + 1 < len(text) and text[at + 1] in chars


def _skip_identifiers(text: str, at: int, lead: str) -> int:
    """The end of `lead ID(.ID)*` at `at`; `at` when there is none."""
    if not _run_follows(text, at, lead, _ALLOWED):
        return at
    at = _skip(text, at + 1, _ALLOWED)
    while _run_follows(text, at, ".", _ALLOWED):
        at = _skip(text, at + 1, _ALLOWED)
    return at


class _Cv:
    """A cvRegex match: where it ends and the groups parseConstraint reads."""

    __slots__ = ("end", "major", "minor", "patch", "pre")

    def __init__(self, end: int, major: str, minor: str, patch: str, pre: str) -> None:
        self.end = end
        self.major = major  # the X run
        self.minor = minor  # "" or "." and its X run
        self.patch = patch  # "" or "." and its X run
        self.pre = pre  # "" or "-" and the prerelease


def _scan_cv(text: str, at: int) -> _Cv | None:
    """cvRegex matched at `at`, or None."""
    if text.startswith("v", at):
        at += 1
    start = at
    at = _skip(text, at, _X_CHARS)
    if at == start:
        return None
    dotted = [text[start:at]]
    while len(dotted) < 3 and _run_follows(text, at, ".", _X_CHARS):
        end = _skip(text, at + 1, _X_CHARS)
        dotted.append(text[at:end])
        at = end
    dotted += [""] * (3 - len(dotted))
    pre_end = _skip_identifiers(text, at, "-")
    end = _skip_identifiers(text, pre_end, "+")
    return _Cv(end, dotted[0], dotted[1], dotted[2], text[at:pre_end])


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


def _scan_group(group: str) -> list[tuple[str, str, _Cv]] | None:
    """validConstraintRegex and findConstraintRegex in one pass: the
    (operator, version text, version) atoms of one `||` group, or None when
    the group is improper."""
    atoms: list[tuple[str, str, _Cv]] = []
    at = _skip(group, 0, _SPACE)
    while True:
        op_end = _skip(group, at, _OP_CHARS)
        cv_start = _skip(group, op_end, _SPACE)
        cv = _scan_cv(group, cv_start)
        if cv is None or group[at:op_end] not in _OPS:
            return None
        atoms.append((group[at:op_end], group[cv_start:cv.end], cv))
        at = _skip(group, cv.end, _SPACE)
        if at == len(group):
            return atoms
        if group[at] == ",":
            at = _skip(group, at + 1, _SPACE)
        elif at == cv.end:
            return None


def _parse_atom(op: str, orig: str, cv: _Cv) -> _Atom:
    """parseConstraint: wildcard parts become zeros and mark the atom dirty."""
    dirty = minor_dirty = patch_dirty = False
    version_text = orig
    if _is_x(cv.major):
        version_text, dirty = f"0.0.0{cv.pre}", True
    elif cv.minor == "" or _is_x(cv.minor[1:]):
        version_text, dirty, minor_dirty = f"{cv.major}.0.0{cv.pre}", True, True
    elif cv.patch == "" or _is_x(cv.patch[1:]):
        version_text, dirty, patch_dirty = f"{cv.major}{cv.minor}.0{cv.pre}", True, True
    try:
        con = new_version(version_text)
    except SemverError:
        raise SemverError("constraint parser error") from None
    return _Atom(op, orig, con, dirty, minor_dirty, patch_dirty)


def _range_at(text: str, at: int) -> tuple[int, str, str] | None:
    r"""constraintRangeRegex `\s*(cv)\s+-\s+(cv)\s*` matched at `at`: (end, low, high)."""
    low_start = _skip(text, at, _SPACE)
    low = _scan_cv(text, low_start)
    if low is None:
        return None
    dash = _skip(text, low.end, _SPACE)
    if dash == low.end or not text.startswith("-", dash):
        return None
    high_start = _skip(text, dash + 1, _SPACE)
    high = _scan_cv(text, high_start) if high_start > dash + 1 else None
    if high is None:
        return None
    return _skip(text, high.end, _SPACE), text[low_start:low.end], text[high_start:high.end]


def _rewrite_range(text: str) -> str:
    """rewriteRange: each hyphen range "1 - 2" (found left to right) becomes
    ">= 1, <= 2 " where its text first occurs."""
    result = text
    at = 0
    while at < len(text):
        found = _range_at(text, at)
        if found is None:
            at += 1
            continue
        end, low, high = found
        result = result.replace(text[at:end], f">= {low}, <= {high} ", 1)
        at = end
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
    groups: list[tuple[_Atom, ...]] = []
    contains_pre: list[bool] = []
    for group in _rewrite_range(text).split("||"):
        scanned = _scan_group(group)
        if scanned is None:
            raise SemverError(f"improper constraint: {group}")
        atoms = tuple(_parse_atom(op, orig, cv) for op, orig, cv in scanned)
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
