"""helm's `template` output from the render cache is what helm prints run now, whatever the
directory the chart was written to (testbed.helm.helm_template_cached)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from testbed import helm
from tests.unit.chart._helm import write_chart

TEMPLATE = "kind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  x: {{ .Values.x | quote }}\n"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "render-cache"
    monkeypatch.setattr(helm, "render_cache_dir", lambda: directory)
    return directory


def _entries(cache: Path) -> list[Path]:
    return sorted(cache.rglob("*.json")) if cache.exists() else []


def _now(args: list[str]) -> tuple[int, str, str]:
    done = subprocess.run([str(helm.helm_binary()), *args], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def _cached(args: list[str], sources: list[Path], sample: int = 0) -> tuple[int, str, str]:
    done = helm.helm_template_cached(args, sources, sample=sample)
    return done.returncode, done.stdout, done.stderr


def test_a_chart_written_elsewhere_finds_its_output_and_its_own_path(tmp_path: Path, cache: Path) -> None:
    first = write_chart(tmp_path / "a" / "web", {"templates/cm.yaml": TEMPLATE, "values.yaml": "x: 1\n"})
    second = tmp_path / "b" / "web"
    shutil.copytree(first, second)
    for chart in (first, second):
        # A values file that is not there: helm's error names its path.
        args = ["template", "rel", str(chart), "-f", str(chart / "missing.yaml")]
        assert _cached(args, [chart, chart / "missing.yaml"]) == _now(args)
        assert str(chart / "missing.yaml") in _cached(args, [chart, chart / "missing.yaml"])[2]
        args = ["template", "rel", str(chart)]
        assert _cached(args, [chart]) == _now(args)
    assert len(_entries(cache)) == 2  # the copy found both of the first chart's outputs


def test_a_changed_file_value_or_sample_is_another_entry(tmp_path: Path, cache: Path) -> None:
    chart = write_chart(tmp_path / "web", {"templates/cm.yaml": TEMPLATE, "values.yaml": "x: 1\n"})
    args = ["template", "rel", str(chart)]
    before = _cached(args, [chart])
    (chart / "values.yaml").write_text("x: 2\n")
    after = _cached(args, [chart])

    assert before != after and after == _now(args) and 'x: "2"' in after[1]
    assert _cached([*args, "--set", "x=3"], [chart]) == _now([*args, "--set", "x=3"])
    assert _cached(args, [chart], sample=1) == after
    assert len(_entries(cache)) == 4


def test_only_template_is_cached_and_a_post_renderer_never(tmp_path: Path, cache: Path) -> None:
    chart = write_chart(tmp_path / "web", {"templates/cm.yaml": TEMPLATE, "values.yaml": "x: 1\n"})
    with pytest.raises(ValueError, match="only `helm template`"):
        helm.helm_template_cached(["lint", str(chart)], [chart])
    args = ["template", "rel", str(chart), "--post-renderer", "nothing-so-named"]
    assert _cached(args, [chart]) == _now(args)
    assert _entries(cache) == []
