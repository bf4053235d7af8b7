"""urlParse / urlJoin. Expectations come from Sprig v3's url_test.go and the
behaviour documented in Go's net/url (url_test.go parse cases and error
texts), cited per test."""

from __future__ import annotations

import pytest

from runner.funcs import urls
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError

SPRIG_PARSE_CASES = {
    "proto://auth@host:80/path?query#fragment": {
        "fragment": "fragment",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "query",
        "scheme": "proto",
        "userinfo": "auth",
    },
    "proto://host:80/path": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "",
        "scheme": "proto",
        "userinfo": "",
    },
    "something": {
        "fragment": "",
        "host": "",
        "hostname": "",
        "opaque": "",
        "path": "something",
        "query": "",
        "scheme": "",
        "userinfo": "",
    },
    "proto://user:passwor%20d@host:80/path": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/path",
        "query": "",
        "scheme": "proto",
        "userinfo": "user:passwor%20d",
    },
    "proto://host:80/pa%20th?key=val%20ue": {
        "fragment": "",
        "host": "host:80",
        "hostname": "host",
        "opaque": "",
        "path": "/pa th",
        "query": "key=val%20ue",
        "scheme": "proto",
        "userinfo": "",
    },
}


def test_registered_signatures() -> None:
    funcs = registered()
    assert funcs["urlParse"].params == ("string",)
    assert funcs["urlJoin"].params == ("map[string]interface {}",)
    assert funcs["urlJoin"].returns == "string"


@pytest.mark.parametrize(("raw", "expected"), list(SPRIG_PARSE_CASES.items()))
def test_url_parse_matches_sprig(raw: str, expected: dict[str, str]) -> None:
    # Sprig TestUrlParse
    assert urls.url_parse(raw) == expected


def test_url_join_matches_sprig() -> None:
    # Sprig TestUrlJoin
    parts = {"fragment": "fragment", "host": "host:80", "path": "/path", "query": "query", "scheme": "proto"}
    assert urls.url_join(parts) == "proto://host:80/path?query#fragment"
    parts = {"fragment": "fragment", "host": "host:80", "path": "/path", "scheme": "proto", "userinfo": "ASDJKJSD"}
    assert urls.url_join(parts) == "proto://ASDJKJSD@host:80/path#fragment"


def test_parse_then_join_round_trips() -> None:
    for raw in SPRIG_PARSE_CASES:
        assert urls.url_join(urls.url_parse(raw)) == raw


@pytest.mark.parametrize(
    ("raw", "field", "value"),
    [
        ("mailto:webmaster@golang.org", "opaque", "webmaster@golang.org"),  # net/url opaque
        ("HTTP://www.google.com/", "scheme", "http"),  # scheme is lowercased
        ("http://[fe80::1%25en0]:8080/", "hostname", "fe80::1%en0"),  # IPv6 zone
        ("http://www.google.com/?", "query", ""),  # ForceQuery
        ("http://www.google.com/file%20one%26two", "path", "/file one&two"),
        ("http://user:password@google.com", "userinfo", "user:password"),
        ("http://j@ne:password@google.com", "userinfo", "j%40ne:password"),
        ("http://x/#a%20b", "fragment", "a b"),
    ],
)
def test_go_parse_cases(raw: str, field: str, value: str) -> None:
    assert urls.url_parse(raw)[field] == value


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (":foo", "missing protocol scheme"),
        ("http://host:port/", 'invalid port ":port" after host'),
        ("http://[::1", "missing ']' in host"),
        ("http://a b.com/", 'invalid character " " in host name'),
        ("http://x/%zz", 'invalid URL escape "%zz"'),
        ("1http:x", "first path segment in URL cannot contain colon"),
        ("http://x\n/", "net/url: invalid control character in URL"),
        # Go 1.25.2+ (CVE-2025-47912): brackets only around a whole IPv6 literal.
        ("http://[1.2.3.4]/", "invalid IP-literal"),
        ("http://x[::1]/", "invalid IP-literal"),
        ("http://[zz]/", 'invalid host: ParseAddr("zz"): unable to parse IP'),
        ("http://[1::2::3]/", 'invalid host: ParseAddr("1::2::3"): multiple :: in address (at ":3")'),
        (
            "http://[12345::]/",
            'invalid host: ParseAddr("12345::"): each group must have 4 or less digits (at "12345::")',
        ),
    ],
)
def test_parse_errors_are_sprig_panics_wrapping_go_errors(raw: str, reason: str) -> None:
    # url.Parse wraps errors as `parse "<url>": <reason>` (url.Error).
    quoted = raw.replace("\n", "\\n")
    with pytest.raises(FuncError) as info:
        urls.url_parse(raw)
    assert str(info.value) == f'unable to parse url: parse "{quoted}": {reason}'


def test_join_escapes_path_fragment_and_userinfo() -> None:
    parts = {"scheme": "https", "host": "ex.com", "path": "/a b", "fragment": "f g", "userinfo": "u:p@ss"}
    assert urls.url_join(parts) == "https://u:p%40ss@ex.com/a%20b#f%20g"


def test_join_without_host() -> None:
    assert urls.url_join({"scheme": "file", "path": "/tmp"}) == "file:///tmp"
    assert urls.url_join({"path": "a:b"}) == "./a:b"  # a colon in the first segment
    assert urls.url_join({}) == ""


def test_join_rejects_non_string_values() -> None:
    with pytest.raises(FuncError) as info:
        urls.url_join({"host": 80.0})
    assert str(info.value) == "unable to parse host key, must be of type string, but float64 found"


def test_parse_error_names_the_part_before_the_fragment() -> None:
    # url.Parse cuts "#frag" first and reports parse errors on the rest;
    # a bad fragment is reported with the whole input.
    with pytest.raises(FuncError) as info:
        urls.url_parse("(,)%#frag")
    assert str(info.value) == 'unable to parse url: parse "(,)%": invalid URL escape "%"'
    with pytest.raises(FuncError) as info:
        urls.url_parse("http://h/#%zz")
    assert str(info.value) == 'unable to parse url: parse "http://h/#%zz": invalid URL escape "%zz"'


def test_ipv4_mapped_and_zoned_literals_are_accepted() -> None:
    assert urls.url_parse("http://[::ffff:1.2.3.4]:80/")["hostname"] == "::ffff:1.2.3.4"
    assert urls.url_parse("http://[fe80::1%25en0]/")["host"] == "[fe80::1%en0]"


def test_parse_addr_error_quotes_a_non_bmp_rune_as_strconv_quote() -> None:
    # strconv.Quote writes a non-printable rune above U+FFFF as \U%08x.
    with pytest.raises(FuncError) as info:
        urls.url_parse("http://[\U000f0000]/")
    assert str(info.value).endswith('invalid host: ParseAddr("\\U000f0000"): unable to parse IP')
