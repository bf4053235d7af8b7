"""A warm `template` run reads the chart's YAML from the cache: PyYAML only for text it
does not keep (fromYaml's, a user's values) or never read before; no secret is kept."""

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
    (TO_YAML + "  x: {{ (fromYaml \"a: 1\").a | quote }}\n", True),  # rendered text: not kept
    (TO_YAML + "  x: {{ (fromYaml (printf \"a: %s\" (randAlphaNum 9))).a | quote }}\n", True),
    (TO_YAML + "  x: {{ randAlphaNum 9 }}\n", True),
])
def test_a_warm_run_imports_pyyaml_only_for_yaml_it_does_not_keep(
        tmp_path: Path, template: str, imports_yaml: bool) -> None:
    chart = _chart(tmp_path, template)
    cold_out, cold = _run(chart, tmp_path / "cache")
    warm_out, warm = _run(chart, tmp_path / "cache")
    assert cold == "0 True"
    assert warm == f"0 {imports_yaml}"
    if not imports_yaml:
        assert warm_out == cold_out


SECRET = "hunter2-s3cr3t-value"


def test_no_secret_from_values_or_output_reaches_the_cache(tmp_path: Path) -> None:
    import base64

    chart = _chart(tmp_path, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n"
                             "  password: {{ .Values.password | b64enc }}\n"
                             "  parsed: {{ (fromYaml (printf \"p: %s\" .Values.password)).p | b64enc }}\n"
                             "  dsn: {{ tpl .Values.dsn . | b64enc }}\n")
    values = tmp_path / "secret-values.yaml"
    values.write_text(f"password: {SECRET}\ndsn: 'u:{SECRET}@{{{{ .Release.Name }}}}-db'\n")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-m", "runner.cli", "template", "rel", str(chart),
                               "-f", str(values)], capture_output=True, text=True, cwd=REPO,
                              env=env, timeout=120, check=True)
    encoded = base64.b64encode(SECRET.encode())
    assert proc.stdout.count(encoded.decode()) == 2
    assert base64.b64encode(f"u:{SECRET}@rel-db".encode()).decode() in proc.stdout
    kept = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert kept  # the chart's own files and the documents' heads are kept
    assert not [p for p in kept if SECRET.encode() in p.read_bytes() or encoded in p.read_bytes()]
