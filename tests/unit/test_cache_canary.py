"""Nothing a user passes reaches the cache directory (README, "Caches").

A canary value is passed with --set, --set-string, --set-json, --set-file,
--set-literal and -f, and used where a render puts values: a name, labels,
annotations (hook ones too), a ConfigMap's and a Secret's data, a tpl text.
After `template`, `lint` and `install --dry-run=client`, twice each (cold
then warm), no file under the cache directory holds the canary, plain or
base64, nor a plain digest of any rendered document (names that would let
someone confirm a guessed secret). The heads of the documents are still
remembered: a warm run parses no rendered YAML.
"""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CANARY = "c4n4ry-7f3e"
FLAGS = ("set", "set-string", "set-json", "set-file", "set-literal", "values")

TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-{{ .Values.FLAG }}
  labels:
    canary: {{ .Values.FLAG | quote }}
  annotations:
    note: {{ .Values.FLAG }}
    quoted: '{{ .Values.FLAG }}'
data:
  plain: {{ .Values.FLAG }}
  tpl: {{ tpl "x-{{ .Values.FLAG }}" . | quote }}
---
apiVersion: v1
kind: Secret
metadata:
  name: s-{{ .Values.FLAG }}
  annotations:
    "helm.sh/hook": pre-install
    who: "{{ .Values.FLAG }}"
data:
  password: {{ .Values.FLAG | b64enc }}
"""


def _args(flag: str, tmp_path: Path) -> list[str]:
    key = flag.replace("-", "_")
    if flag == "values":
        path = tmp_path / "user-values.yaml"
        path.write_text(f"{key}: {CANARY}\n")
        return ["-f", str(path)]
    if flag == "set-file":
        path = tmp_path / "canary.txt"
        path.write_text(CANARY)
        return ["--set-file", f"{key}={path}"]
    if flag == "set-json":
        return ["--set-json", f'{key}="{CANARY}"']
    return [f"--{flag}", f"{key}={CANARY}"]


KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
users: [{name: u, user: {token: x}}]
"""


def _run(argv: list[str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    kubeconfig = tmp_path / "kubeconfig"  # --dry-run=client reaches no server
    kubeconfig.write_text(KUBECONFIG)
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "KUBECONFIG": str(kubeconfig),
           "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path / "home")}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)
    return subprocess.run([sys.executable, "-m", "runner.cli", *argv], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=120, check=False)


def _documents(rendered: str) -> list[str]:
    from runner.manifest import split_with_lines

    return [chunk.content for chunk in split_with_lines(rendered)]


@pytest.mark.parametrize("flag", FLAGS)
def test_a_canary_value_reaches_no_cache_file(flag: str, tmp_path: Path) -> None:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 1\n")
    (chart / "templates" / "cm.yaml").write_text(TEMPLATE.replace("FLAG", flag.replace("-", "_")))
    values = _args(flag, tmp_path)
    rendered = ""
    for command in (["template", "rel", str(chart)], ["lint", str(chart)],
                    ["install", "rel", str(chart), "--dry-run=client"]):
        for _ in range(2):
            proc = _run([*command, *values], tmp_path)
            assert proc.returncode == 0, proc.stderr
            assert CANARY in proc.stdout or command[0] == "lint"
            if command[0] == "template":
                rendered = proc.stdout
    secrets = [CANARY.encode(), base64.b64encode(CANARY.encode())]
    for doc in _documents(rendered):  # what the former cache named its entries after
        data = doc.encode()
        secrets += [hashlib.blake2b(data, digest_size=32).hexdigest().encode(),
                    hashlib.sha256(data).hexdigest().encode()]
    kept = [p for p in (tmp_path / "cache").rglob("*") if p.is_file()]
    assert any("manifest-spans" in str(p) for p in kept)  # the heads are still remembered
    for path in kept:
        content = path.read_bytes()
        assert not [s for s in secrets if s in content or s.decode() in path.name], path


def test_a_warm_run_reads_the_heads_back_without_parsing(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(TEMPLATE.replace("FLAG", "set"))
    probe = ("import sys, runner.cli; code = runner.cli.main(sys.argv[1:]);"
             "print(code, 'yaml' in sys.modules, file=sys.stderr)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)
    outputs = []
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", probe, "template", "rel", str(chart),
                               "--set", f"set={CANARY}"], capture_output=True, text=True,
                              cwd=REPO, env=env, timeout=120, check=True)
        outputs.append((proc.stdout, proc.stderr.strip().splitlines()[-1]))
    assert outputs[0][0] == outputs[1][0]
    assert [line for _, line in outputs] == ["0 True", "0 False"]  # PyYAML only on the cold run
