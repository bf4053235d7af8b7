"""Reading damaged records and refusing to write ones Helm could not read back.

Every decode error names the record and what is wrong, in Helm's words where
Helm has some (`get: failed to decode data "KEY": <Go's error>`, compared
with the helm binary in tests/e2e/test_corrupt_records.py); none is an
internal error. A gzip bomb stops at MAX_RECORD_BYTES.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import math
import time
import tracemalloc

import pytest

from runner.deepstack import run_deep
from runner.release import codec
from runner.release.record import Info, Release

KEY = "sh.helm.release.v1.r.v3"
GOOD = {"name": "r", "version": 3, "namespace": "ns", "info": {"status": "deployed"},
        "config": {"a": 1}, "manifest": "---\n"}


def stored(payload: bytes, zipped: bool = True) -> str:
    return base64.b64encode(gzip.compress(payload, mtime=0) if zipped else payload).decode()


def problem(data: str | bytes) -> str:
    with pytest.raises(codec.RecordDecodeError) as info:
        run_deep(lambda: codec.decode(data, key=KEY))
    assert str(info.value).startswith(f'get: failed to decode data "{KEY}": ')
    return info.value.problem


def with_field(path: str, value: object) -> str:
    record = json.loads(json.dumps(GOOD))
    record["chart"] = {"metadata": {"name": "c"}, "templates": [{"name": "t", "data": "eA=="}]}
    node = record
    *parents, last = path.split(".")
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    node[last] = value
    return stored(json.dumps(record).encode())


def test_a_good_record_reads() -> None:
    release = codec.decode(stored(json.dumps(GOOD).encode()), key=KEY)
    assert (release.name, release.version, release.config) == ("r", 3, {"a": 1.0})


@pytest.mark.parametrize(("data", "expected"), [
    ("!!!not base64!!!", "illegal base64 data at input byte 0"),
    ("abc", "illegal base64 data at input byte 0"),
    (base64.b64encode(b"\x1f\x8b\x08" + b"\x00" * 20).decode(), "flate: corrupt input"),
    (base64.b64encode(gzip.compress(b'{"name":"r"}', mtime=0)[:-12]).decode(), "unexpected EOF"),
    (stored(b"[1,2,3]"), "json: cannot unmarshal array into Go value of type v1.Release"),
    (stored(b'"x"'), "json: cannot unmarshal string into Go value of type v1.Release"),
    (stored(b"hello"), "invalid character 'h' looking for beginning of value"),
    (stored(b""), "unexpected end of JSON input"),
    (stored(b'{"name":"r","x":NaN}'), "invalid character 'N' looking for beginning of value"),
    (stored(b'{"config":' + b'{"a":' * 10001 + b"1" + b"}" * 10002),
     "invalid character '{' exceeded max depth"),
    (stored(b"{}"), "the record has no release name"),
    (stored(b'{"name":"r"}'), "the record has no revision (version)"),
    (stored(b'{"name":"r","version":3}'), "the record has no info (status, dates)"),
    (stored(b'{"name":"r","version":7,"info":{}}'),
     "the record holds release r revision 7, not the one its name says"),
    (stored(b'{"name":"q","version":3,"info":{}}'),
     "the record holds release q revision 3, not the one its name says"),
])
def test_damage_is_named(data: str, expected: str) -> None:
    assert problem(data) == expected


@pytest.mark.parametrize(("path", "value", "expected"), [
    ("version", "three", "json: cannot unmarshal string into Go struct field Release.version of type int"),
    ("version", 1.5, "json: cannot unmarshal number 1.5 into Go struct field Release.version of type int"),
    ("name", 1, "json: cannot unmarshal number into Go struct field Release.name of type string"),
    ("info", "deployed",
     "json: cannot unmarshal string into Go struct field Release.info of type map[string]interface {}"),
    ("info.status", 1,
     "json: cannot unmarshal number into Go struct field Release.info.status of type common.Status"),
    ("info.last_deployed", "yesterday",
     'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'),
    ("config", [1],
     "json: cannot unmarshal array into Go struct field Release.config of type map[string]interface {}"),
    ("hooks", {}, "json: cannot unmarshal object into Go struct field Release.hooks of type []*v1.Hook"),
    ("hooks", [1], "json: cannot unmarshal number into Go struct field Release.hooks of type v1.Hook"),
    ("chart", 1, "json: cannot unmarshal number into Go struct field Release.chart of type v2.Chart"),
    ("chart.metadata", 1,
     "json: cannot unmarshal number into Go struct field Chart.chart.metadata of type v2.Metadata"),
    ("chart.metadata.name", 1,
     "json: cannot unmarshal number into Go struct field Metadata.chart.metadata.name of type string"),
    ("chart.templates.0.data", 1,
     "json: cannot unmarshal number into Go struct field File.chart.templates.data of type []uint8"),
    ("chart.templates.0.data", "@@", "illegal base64 data at input byte 0"),
])
def test_wrong_types_read_as_go_reports_them(path: str, value: object, expected: str) -> None:
    assert problem(with_field(path, value)) == expected


def test_null_fields_are_empty_as_in_go() -> None:
    release = codec.decode(with_field("manifest", None), key=KEY)
    assert release.manifest == ""


def test_a_gzip_bomb_stops_at_the_cap() -> None:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as out:
        chunk = b"\0" * (1 << 20)
        for _ in range(256):
            out.write(chunk)
    bomb = base64.b64encode(buf.getvalue()).decode()
    assert len(bomb) < 400_000
    tracemalloc.start()
    start = time.monotonic()
    assert problem(bomb) == (
        "it decompresses to more than 64 MiB (no release is that large: a gzip bomb?)")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert time.monotonic() - start < 5
    assert peak < 2 * codec.MAX_RECORD_BYTES


def release_with(config: dict) -> Release:
    return Release(name="r", namespace="ns", version=1, info=Info(status="deployed"), config=config)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_record_helm_could_not_read_is_not_written(bad: float) -> None:
    with pytest.raises(codec.RecordEncodeError, match="sh.helm.release.v1.r.v1: json: unsupported value"):
        codec.encode(release_with({"y": [1.0, bad]}))


def test_a_record_nested_too_deep_for_helm_is_not_written() -> None:
    config: dict = {}
    node = config
    for _ in range(10000):
        node["a"] = {}
        node = node["a"]
    with pytest.raises(codec.RecordEncodeError, match="nests deeper than 10000"):
        run_deep(lambda: codec.encode(release_with(config)))


def test_invalid_utf8_is_written_as_go_writes_it() -> None:
    encoded = codec.encode(release_with({"s": "a\udcffb"}))
    assert codec.decode(encoded, key="sh.helm.release.v1.r.v1").config == {"s": "a\ufffdb"}
