"""Where a spec release's chart comes from: the release's own connection keys (helmfile's
verify, keyring, plainHttp, insecureSkipTLSVerify) reach the chart download."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.actions import spec_sources
from runner.actions.template import locate_chart
from runner.chart.sources.errors import SourceError
from runner.chart.sources.messages import quiet
from runner.spec.context import RunContext
from runner.spec.load import parse_spec

CONTEXT = RunContext("default", None, {}, {})


def chart_of(text: str, base_dir: str = "/repo"):
    [release] = parse_spec(text, "deploy-runner.yaml", base_dir, context=CONTEXT).releases
    return release.chart


def located(chart) -> str:
    """Where a run's chart_input finds the chart: the spec's reference, from its source."""
    return locate_chart(*spec_sources.chart_source(chart), say=quiet)


def test_release_connection_keys_reach_the_download(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = []
    monkeypatch.setattr("runner.chart.sources.downloader.locate_chart",
                        lambda ref, options, say: seen.append((ref, options)) or "/cache/chart.tgz")
    chart = chart_of("releases:\n- name: a\n  chart: oci://registry.local/charts/a\n"
                     "  plainHttp: true\n  insecureSkipTLSVerify: true\n  verify: true\n"
                     "  keyring: /keys/pubring.gpg\n")

    assert located(chart) == "/cache/chart.tgz"
    [(ref, options)] = seen
    assert ref == "oci://registry.local/charts/a"
    assert (options.plain_http, options.insecure_skip_tls_verify, options.verify, options.keyring) == (
        True, True, True, "/keys/pubring.gpg")


def test_defaults_give_every_release_a_setting_and_a_local_chart_stays_local(tmp_path: Path) -> None:
    (tmp_path / "app").mkdir()
    plain = chart_of("releases:\n- name: a\n  chart: ./app\n", str(tmp_path))
    assert located(plain) == str(tmp_path / "app")

    verified = chart_of("defaults: {verify: true}\nreleases:\n- name: a\n  chart: ./app\n", str(tmp_path))
    assert verified.verify
    with pytest.raises(SourceError):  # an unpacked chart has no provenance to check
        located(verified)
