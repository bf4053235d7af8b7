"""Hostile input against Helm 4.1.4: the same output, error text and exit code, no hang, no crash.

YAML alias bombs and self-containing anchors in every YAML a run reads
(values.yaml, -f, Chart.yaml, fromYaml), nesting at go-yaml's and
encoding/json's 10000 limit, --set-json values Go's decoder refuses (NaN,
Infinity, out of range, too deep), template bytes that are not UTF-8, and
--set values that start with '-'. Our CLI runs in a child process (a crash
is an exit code here, not a lost test run) with a timeout (a hang fails).
Helm runs every case in the test run; nothing expected is stored.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from testbed.helm import helm_binary

OURS = Path(sys.executable).parent / "deploy-runner"
TIMEOUT = 120


def bomb(levels: int = 9, width: int = 9, prefix: str = "a") -> str:
    lines = [f'{prefix}0: &{prefix}0 [' + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        refs = ", ".join([f"*{prefix}{i - 1}"] * width)
        lines.append(f"{prefix}{i}: &{prefix}{i} [{refs}]")
    return "\n".join(lines) + "\n"


FILES: dict[str, str | bytes] = {
    "bomb.yaml": bomb(),
    # around the alias budget: some pass, some fail, as in go-yaml
    **{f"bomb-{levels}x{width}.yaml": bomb(levels, width) for levels in (4, 5) for width in (5, 6, 7, 8)},
    # just past and just under the alias budget (decode.go: >99% of over 1000 decodes)
    "aliases-over.yaml": "a: &a [" + ",".join(["x"] * 10) + "]\nb: [" + ",".join(["*a"] * 100) + "]\n",
    "aliases-under.yaml": "a: &a [" + ",".join(["x"] * 10) + "]\nb: [" + ",".join(["*a"] * 20) + "]\n",
    "dup-nan.yaml": "{a: .nan, a: x}\n",  # found by tests/fuzz
    "cycle.yaml": "a: &a [1, *a]\n",
    "cycle-map.yaml": "x:\n  a: &a\n    b: *a\n",
    "merge-alias-seq.yaml": "a: &a {x: 1}\ns: &s [*a]\nb:\n  <<: *s\n",
    "merge-seq.yaml": "a: &a {x: 1}\nc: &c {x: 3, z: 1}\nb:\n  <<: [*a, *c]\n",
    "flow-9999.yaml": "x: " + "[" * 9999 + "]" * 9999 + "\n",
    "flow-10000.yaml": "x: " + "[" * 10000 + "]" * 10000 + "\n",
    "flow-10001.yaml": "x: " + "[" * 10001 + "]" * 10001 + "\n",
    "flow-map-10001.yaml": "a: 1\nx: " + "{a: " * 10001 + "1" + "}" * 10001 + "\n",
    "block-9999.yaml": "a:\n" + "- " * 9999 + "x\n",
    "block-10000.yaml": "a:\n" + "- " * 10000 + "x\n",
    "block-10001.yaml": "a:\n" + "- " * 10001 + "x\n",
    "flow-100k.yaml": "x: " + "[" * 100_000 + "]" * 100_000 + "\n",
}

CHARTS: dict[str, dict[str, str | bytes]] = {
    "ch": {"templates/cm.yaml": "values: {{ .Values | toJson }}\n"},
    "bomb-values": {"values.yaml": bomb(), "templates/cm.yaml": "x: 1\n"},
    "bomb-chart": {"Chart.yaml": "apiVersion: v2\nname: bomb-chart\nversion: 0.1.0\n" + bomb(prefix="z"),
                   "templates/cm.yaml": "x: 1\n"},
    "deep-values": {"values.yaml": "a:\n" + "- " * 10001 + "x\n", "templates/cm.yaml": "x: 1\n"},
    "from-yaml": {
        "b.yaml": bomb(),
        "c.yaml": "a: &a [1, *a]\n",
        "d.yaml": "x: " + "[" * 10001 + "]" * 10001 + "\n",
        "templates/cm.yaml": (
            'e: {{ (fromYaml (.Files.Get "b.yaml")).Error | quote }}\n'
            'f: {{ (fromYamlArray (.Files.Get "b.yaml")) | toJson | quote }}\n'
            'g: {{ (fromYaml (.Files.Get "c.yaml")).Error | quote }}\n'
            'h: {{ (fromYaml (.Files.Get "d.yaml")).Error | quote }}\n'
        ),
    },
    "deep-to-yaml": {"templates/cm.yaml": (
        "{{ $x := list }}{{ range until 10001 }}{{ $x = list $x }}{{ end }}"
        "a: {{ toYaml $x | len }}\nb: {{ mustToYaml $x | len }}\n")},
    "not-utf8": {"templates/cm.yaml": b'x: "\xff\xfe"\n'},
    "not-utf8-action": {"templates/cm.yaml": b'x: {{ "a\xffb" | quote }}\ny: {{ len "\xff" }}\n'},
    "not-utf8-name": {"templates/cm.yaml": b"{{ \xff }}\n"},
    "not-utf8-comment": {"templates/cm.yaml": b"{{/* \xc3 */}}x: 1\n# \xe9\n"},
    "include-1001": {"templates/cm.yaml": (
        '{{- define "r" -}}{{- if gt (int .) 0 -}}{{ include "r" (sub (int .) 1) }}'
        '{{- else -}}done{{- end -}}{{- end -}}\nx: {{ include "r" 1001 }}\n')},
    "template-depth": {"templates/cm.yaml": '{{- define "r" -}}{{ template "r" . }}{{- end -}}\nx: {{ template "r" . }}\n'},
    "parens-10001": {"templates/cm.yaml": "x: {{ " + "(" * 10001 + "1" + ")" * 10001 + " }}\n"},
}

TEMPLATE_CASES: tuple[tuple[str, ...], ...] = (
    *(("ch", "-f", name) for name in FILES),
    ("bomb-values",),
    ("bomb-chart",),
    ("deep-values",),
    ("from-yaml",),
    ("deep-to-yaml",),
    ("not-utf8",),
    ("not-utf8-action",),
    ("not-utf8-name",),
    ("not-utf8-comment",),
    ("include-1001",),
    ("template-depth",),
    ("parens-10001",),
    *(("ch", "--set-json", value) for value in (
        "y=NaN", "y=-Infinity", "y=1e999", "y=[1e999]", 'y={"a":NaN}', "y=1e308", "y=nan",
        "y=1" + "0" * 400, '{"y": NaN}', '{"y": 1e999}',
        "y=" + "[" * 10000 + "]" * 10000,
        "y=" + "[" * 10001 + "]" * 10001,
        "y=1,z=" + '{"a":' * 10001 + "1" + "}" * 10001,
        '{"y": ' + "[" * 10001 + "]" * 10001 + "}",
    )),
    *(("ch", flag, value) for flag in ("--set", "--set-string", "-f", "--set-json")
      for value in ("-}=x", "-x=1", "--x=1", "-=1", "-")),
)
LINT_CASES: tuple[tuple[str, ...], ...] = (
    ("bomb-values",),
    ("bomb-chart",),
    ("deep-values",),
    ("not-utf8",),
    ("ch", "-f", "bomb.yaml"),
    ("ch", "--strict", "-f", "cycle.yaml"),
    ("ch", "-f", "block-10000.yaml"),
    ("ch", "--set", "-}=x"),
)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    for name, content in FILES.items():
        _write(root / name, content)
    for chart, files in CHARTS.items():
        files = {"Chart.yaml": f"apiVersion: v2\nname: {chart}\nversion: 0.1.0\n", **files}
        for name, content in files.items():
            _write(root / chart / name, content)
    return root


def _write(path: Path, content: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)


def _run(binary: Path, workdir: Path, argv: list[str]) -> tuple[bytes, bytes, int]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "XDG_CACHE_HOME": str(workdir / "cache"),
           "HELM_PLUGINS": str(workdir / "plugins")}
    proc = subprocess.run([str(binary), *argv], capture_output=True, cwd=workdir, env=env,
                          check=False, timeout=TIMEOUT)
    return proc.stdout, proc.stderr, proc.returncode


def _ids(case: tuple[str, ...]) -> str:
    text = " ".join(case)
    return text if len(text) < 60 else f"{text[:40]}...({len(text)} chars)"


@pytest.mark.parametrize("case", TEMPLATE_CASES, ids=_ids)
def test_template_as_helm(case: tuple[str, ...], workdir: Path) -> None:
    argv = ["template", "r", *case]
    ours = _run(OURS, workdir, argv)
    assert ours[2] in (0, 1), ours  # no crash (SIGSEGV is -11)
    assert ours == _run(helm_binary(), workdir, argv)


@pytest.mark.parametrize("case", LINT_CASES, ids=_ids)
def test_lint_as_helm(case: tuple[str, ...], workdir: Path) -> None:
    argv = ["lint", *case]
    ours = _run(OURS, workdir, argv)
    assert ours[2] in (0, 1), ours
    assert ours == _run(helm_binary(), workdir, argv)
