"""The release record keeps every field Helm 4.1.4 writes, in Helm's encoding."""

from __future__ import annotations

import base64
import gzip
import json
import subprocess

import pytest

from runner.release import codec
from runner.release.record import Hook, HookExecution, Info, Release, parse_go_time, storage_key
from testbed.helm import helm_binary
from tests.corpus import corpus_chart


@pytest.fixture(scope="module")
def helm_release_json() -> dict:
    """A release as Helm 4.1.4 builds it (client dry run prints the record's JSON)."""
    chart = corpus_chart("kibana")  # has hooks, notes and user values
    proc = subprocess.run(
        [str(helm_binary()), "install", "rec", str(chart), "--namespace", "ns", "--dry-run=client",
         "--set", "replicas=2", "-o", "json"],
        capture_output=True, text=True, check=True,
    )
    return json.loads(proc.stdout)


def test_helm_record_round_trips_field_by_field(helm_release_json: dict) -> None:
    release = Release.from_json(helm_release_json)
    assert release.hooks, "the chart has hooks: the fixture must exercise them"
    assert release.to_json() == helm_release_json


def test_round_trip_keeps_helm_key_order(helm_release_json: dict) -> None:
    release = Release.from_json(helm_release_json)
    assert list(release.to_json()) == list(helm_release_json)
    assert list(release.to_json()["info"]) == list(helm_release_json["info"])


def test_codec_is_base64_of_gzip_json(helm_release_json: dict) -> None:
    encoded = codec.encode(Release.from_json(helm_release_json))
    raw = base64.b64decode(encoded)
    assert raw[:3] == b"\x1f\x8b\x08"
    assert json.loads(gzip.decompress(raw)) == helm_release_json
    assert codec.decode(encoded).to_json() == helm_release_json


def test_codec_reads_uncompressed_records() -> None:
    plain = base64.b64encode(json.dumps({"name": "x", "version": 3, "info": {"status": "deployed"}}).encode())
    release = codec.decode(plain)
    assert (release.name, release.version, release.info.status) == ("x", 3, "deployed")


def test_codec_error_names_the_record() -> None:
    with pytest.raises(codec.RecordDecodeError, match="sh.helm.release.v1.x.v1"):
        codec.decode("not base64!!", key="sh.helm.release.v1.x.v1")


def test_omitempty_and_hook_last_run_always_present() -> None:
    hook = Hook(name="h", kind="Job", path="c/templates/h.yaml", manifest="m", events=["pre-install"])
    release = Release(name="r", namespace="ns", version=1, info=Info(status="deployed"), hooks=[hook])
    data = release.to_json()
    assert "config" not in data and "manifest" not in data and "apply_method" not in data
    assert data["hooks"][0]["last_run"] == {"phase": ""}
    assert "weight" not in data["hooks"][0]
    hook.last_run = HookExecution(started_at="2024-01-01T00:00:00Z", phase="Succeeded")
    assert release.to_json()["hooks"][0]["last_run"] == {"started_at": "2024-01-01T00:00:00Z", "phase": "Succeeded"}


def test_storage_key_and_go_time_parsing() -> None:
    assert storage_key("web", 12) == "sh.helm.release.v1.web.v12"
    parsed = parse_go_time("2026-11-23T02:57:55.04240155Z")
    assert (parsed.year, parsed.second, parsed.microsecond) == (2026, 55, 42401)
    assert parse_go_time("2026-11-23T02:57:55+02:00").utcoffset().total_seconds() == 7200
