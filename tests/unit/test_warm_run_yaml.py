"""A warm `template` run reads its YAML from the cache: PyYAML only for text never read before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RUN = ("import sys, runner.cli; code = runner.cli.main(['template', 'rel', sys.argv[1]]);"
       "print(code, 'yaml' in sys.modules, file=sys.stderr)")


def _chart(tmp_path: Path, template: str) -> Path:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\nkubeVersion: '>=1.20'\n")
    (chart / "values.yaml").write_text("labels:\n  app: web\n  tier: '1'\nreplicas: 2\n")
    (chart / "templates" / "cm.yaml").write_text(template)
    return chart


def _run(chart: Path, cache: Path) -> tuple[str, str]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)
    proc = subprocess.run([sys.executable, "-c", RUN, str(chart)], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120, check=True)
    return proc.stdout, proc.stderr.strip()


TO_YAML = ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n"
           "    {{- toYaml .Values.labels | nindent 4 }}\ndata:\n  n: {{ .Values.replicas | quote }}\n")


@pytest.mark.parametrize(("template", "imports_yaml"), [
    (TO_YAML, False),
    (TO_YAML + "  x: {{ (fromYaml \"a: 1\").a | quote }}\n", False),
    (TO_YAML + "  x: {{ (fromYaml (printf \"a: %s\" (randAlphaNum 9))).a | quote }}\n", True),
    (TO_YAML + "  x: {{ randAlphaNum 9 }}\n", True),
])
def test_a_warm_run_imports_pyyaml_only_for_yaml_it_has_not_read_before(
        tmp_path: Path, template: str, imports_yaml: bool) -> None:
    chart = _chart(tmp_path, template)
    cold_out, cold = _run(chart, tmp_path / "cache")
    warm_out, warm = _run(chart, tmp_path / "cache")
    assert cold == "0 True"
    assert warm == f"0 {imports_yaml}"
    if not imports_yaml:
        assert warm_out == cold_out
