"""semver / semverCompare. Expectations come from Sprig v3's semver_test.go
and Masterminds/semver v3.4's version_test.go / constraints_test.go
(TestConstraintsCheck), cited per test."""

from __future__ import annotations

import pytest

from runner.funcs import semver as sv
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError


def test_registered_with_go_signatures() -> None:
    funcs = registered()
    assert funcs["semver"].params == ("string",) and funcs["semver"].fallible
    assert funcs["semverCompare"].params == ("string", "string")
    assert funcs["semverCompare"].returns == "bool" and funcs["semverCompare"].fallible


def test_semver_exposes_the_version_methods() -> None:
    # Sprig TestSemver: `$s.Prerelease` is beta.1, `$s.Major` is 1.
    version = sv.semver("1.2.3-beta.1+c0ff33")
    assert version.Prerelease() == "beta.1"
    assert version.Major() == 1 and version.Minor() == 2 and version.Patch() == 3
    assert version.Metadata() == "c0ff33"
    assert version.Original() == "1.2.3-beta.1+c0ff33"
    assert str(version) == "1.2.3-beta.1+c0ff33"


def test_compare_method() -> None:
    # Sprig TestSemver: `semver "1.2.3" | (semver "1.3.3").Compare` is 1, ...
    assert sv.semver("1.2.3").Compare(sv.semver("1.2.3")) == 0
    assert sv.semver("1.3.3").Compare(sv.semver("1.2.3")) == 1
    assert sv.semver("1.2.3").Compare(sv.semver("1.4.3")) == -1


@pytest.mark.parametrize(
    ("text", "expected"),
    [("v1.2", "1.2.0"), ("1", "1.0.0"), ("01.02.03", "1.2.3"), ("1.2-5", "1.2.0-5")],
)
def test_new_version_coerces_loose_versions(text: str, expected: str) -> None:
    # NewVersion with CoerceNewVersion (the v3.4 default) and Original kept.
    version = sv.semver(text)
    assert version.String() == expected
    assert version.Original() == text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo", "invalid semantic version"),
        ("1.2.beta", "invalid semantic version"),
        ("1.2.3.4", "invalid semantic version"),
        ("1.2.3-0123", "version segment starts with 0"),
        ("1.2.3-", "invalid semantic version"),
        ("99999999999999999999.0.0", 'error parsing version segment: strconv.ParseUint: parsing "99999999999999999999": value out of range'),
    ],
)
def test_invalid_versions_fail_with_masterminds_errors(text: str, message: str) -> None:
    with pytest.raises(FuncError) as info:
        sv.semver(text)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ("1.2.3", "1.5.1", -1),
        ("2.2.3", "1.5.1", 1),
        ("1.2.3", "1.2.3+build", 0),  # build metadata is ignored
        ("1.0.0-alpha", "1.0.0", -1),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta", -1),  # numbers sort before identifiers
        ("1.0.0-beta.2", "1.0.0-beta.11", -1),  # numeric identifiers compare as numbers
        ("1.0.0-rc.1", "1.0.0-beta.11", 1),
    ],
)
def test_version_ordering(left: str, right: str, expected: int) -> None:
    assert sv.semver(left).Compare(sv.semver(right)) == expected


# Masterminds/semver v3.4 constraints_test.go TestConstraintsCheck (a selection).
CONSTRAINT_CASES = [
    ("*", "1.2.3", True),
    ("~0.0.0", "1.2.3", True),
    ("0.x.x", "1.2.3", False),
    ("0.0.x", "1.2.3", False),
    ("0.0.0", "1.2.3", False),
    ("^0.0.0", "1.2.3", False),
    ("= 2.0", "1.2.3", False),
    ("= 2.0", "2.0.0", True),
    ("4.1", "4.1.0", True),
    ("4.1.x", "4.1.3", True),
    ("1.x", "1.4", True),
    ("!=4.1", "4.1.0", False),
    ("!=4.1-alpha", "4.1.0-alpha", False),
    ("!=4.1-alpha", "4.1.1-alpha", False),
    ("!=4.1-alpha", "4.1.0", True),
    ("!=4.x", "4.1.0", False),
    ("!=4.1.x", "4.2.0", True),
    ("!=4.2.x", "4.2.3", False),
    (">1.1", "4.1.0", True),
    (">1.1", "1.1.0", False),
    ("<1.1", "1.1.1", False),
    ("<1.x", "1.1.1", False),
    ("<1.x", "0.1.1", True),
    ("<1.1.x", "1.1.500", False),
    ("<1.1.x", "1.0.500", True),
    (">=1.1", "4.1.0-beta", False),
    (">=1.1", "0.0.9", False),
    ("<=1.1", "0.1.0-alpha", False),
    ("<=1.1-a", "0.1.0-alpha", True),
    ("<=2.x", "3.0.0", False),
    ("<=1.1", "1.1.1", True),
    ("<=1.1.x", "1.2.500", False),
    ("<=4.5", "4.6.3", False),
    (">1.1, <2", "1.1.1", False),
    (">1.1, <2", "1.2.1", True),
    (">=1.1, <2, !=1.2.3", "1.2.3", False),
    (">1.1 <2", "1.2.1", True),
    (">=1.1    <2    !=1.2.3", "1.2.3", False),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", True),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", False),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", True),
    ("> 1.1, <     2", "1.1.1", False),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", True),
    (">= 1.0.0  <= 2.0.0-beta", "3.0.0", False),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", False),
    (">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3", "1.0.1-beta", False),
    (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", True),
    ("1.1 - 2", "1.1.1", True),
    ("1.5.0 - 4.5", "3.7.0", True),
    ("1.1-3", "4.3.2", False),
    ("^1.1", "1.1.1", True),
    ("^1.1", "4.3.2", False),
    ("^1.x", "1.1.1-beta1", False),
    ("^1.1.2-alpha", "1.2.1-beta1", True),
    ("^1.2.x-alpha", "1.1.1-beta1", False),
    ("^0.0.1", "0.0.1", True),
    ("^0.0.1", "0.3.1", False),
    ("~*", "2.1.1", True),
    ("~1", "2.1.1", False),
    ("~1", "1.4", True),
    ("~1.1", "1.1.1-alpha", False),
    ("~1.1-alpha", "1.1.1-beta", True),
    ("~1.1.1-beta", "1.1.1-alpha", False),
    ("~1.1.1-beta", "1.1.1", True),
    ("~1.2.3", "1.2.2", False),
    ("~1.2.3", "1.3.2", False),
    ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", True),
    ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", True),
]


@pytest.mark.parametrize(("constraint", "version", "expected"), CONSTRAINT_CASES)
def test_semver_compare_follows_masterminds_constraints(
    constraint: str, version: str, expected: bool
) -> None:
    assert sv.semver_compare(constraint, version) is expected


def test_sprig_semver_compare_examples() -> None:
    # Sprig TestSemverCompare
    assert sv.semver_compare("1.2.3", "1.2.3") is True
    assert sv.semver_compare("^1.2.0", "1.2.3") is True
    assert sv.semver_compare("^1.2.0", "2.2.3") is False


@pytest.mark.parametrize(
    "constraint",
    [">= bar", "BAR >= 1.2.3", "12.3.4.1234", "12.3.34~ 1.2.3"],
)
def test_improper_constraints_are_errors(constraint: str) -> None:
    # TestNewConstraint: these fail to parse.
    with pytest.raises(FuncError, match="^improper constraint: "):
        sv.semver_compare(constraint, "1.0.0")


def test_improper_constraint_message_shows_the_failing_group() -> None:
    # v3.4.0 NewConstraint: fmt.Errorf("improper constraint: %s", v) on the || group.
    with pytest.raises(FuncError) as info:
        sv.semver_compare(">= 1 || foo", "1.0.0")
    assert str(info.value) == "improper constraint:  foo"


def test_invalid_version_in_compare_is_an_error() -> None:
    with pytest.raises(FuncError, match="^invalid semantic version$"):
        sv.semver_compare(">=1.0.0", "not-a-version")


def test_many_or_groups_are_accepted() -> None:
    # v3.4.0's NewConstraint splits on || without a group limit.
    constraint = "||".join(str(n) for n in range(1, 40))
    assert sv.semver_compare(constraint, "1.0.0") is True


def test_inc_methods_return_version_values() -> None:
    # IncPatch/IncMinor/IncMajor/SetPrerelease return semver.Version (a value):
    # value-receiver methods work, the *Version ones (Original, Compare, ...) are absent.
    bumped = sv.semver("v1.2.3-beta+b").IncPatch()
    assert bumped.String() == "1.2.3"  # a prerelease is dropped, not bumped
    assert sv.semver("1.2.3").IncPatch().String() == "1.2.4"
    assert sv.semver("1.2.3").IncMinor().String() == "1.3.0"
    assert sv.semver("1.2.3").IncMajor().String() == "2.0.0"
    assert bumped.go_type == "semver.Version" and bumped.go_kind == "struct"
    assert not hasattr(bumped, "Original") and not hasattr(bumped, "Compare")
    assert sv.semver("1.2.3").SetPrerelease("rc.1").String() == "1.2.3-rc.1"
    with pytest.raises(FuncError, match="^invalid prerelease string$"):
        sv.semver("1.2.3").SetPrerelease("a..b")
