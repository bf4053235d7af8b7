"""Each chart's template scope against Helm 4.1.4: the Go types a template sees in a parent
chart and in its subcharts (common.Values for `.`, `.Values` and `.Template` everywhere,
also for a subchart without values of its own), and values a subchart's template sets
reaching the parent's templates, as they do in Helm (subcharts render first), while the
parent sees the subchart's table as a plain map (`dig` works on it there, not on a
subchart's `.Values`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.cli_helpers import helm_in, ours_in

TYPES = ('types: {{ typeOf . }}|{{ typeOf .Values }}|{{ typeOf .Template }}|{{ printf "%T" .Values }}'
         '|{{ printf "%#v" .Values }}|{{ typeOf .Values.global }}\n')
SUB_WRITES = ('{{- $_ := set .Values "fromSub" "set by sub" }}{{- $_ := unset .Values "x" }}'
              '{{- $_ := merge .Values (dict "merged" 1 "fromSub" "not over") }}\n')
FILES = {
    "Chart.yaml": "apiVersion: v2\nname: top\nversion: 0.1.0\n",
    "values.yaml": "a: {b: 1}\nsub: {x: 1}\n",
    "templates/t.yaml": TYPES + ('seen: {{ .Values.sub.fromSub }}|{{ .Values.sub.merged }}|{{ hasKey .Values.sub "x" }}'
                                 '|{{ typeOf .Values.a }}|{{ typeOf .Values.sub }}|{{ dig "merged" 0 .Values.sub }}\n'),
    "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
    "charts/sub/templates/t.yaml": TYPES + SUB_WRITES,
    "charts/novalues/Chart.yaml": "apiVersion: v2\nname: novalues\nversion: 0.1.0\n",
    "charts/novalues/templates/t.yaml": TYPES,
    "charts/sub/charts/deeper/Chart.yaml": "apiVersion: v2\nname: deeper\nversion: 0.1.0\n",
    "charts/sub/charts/deeper/templates/t.yaml": TYPES,
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scopes")
    for rel, text in FILES.items():
        path = root / "top" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize("argv", [("template", "r", "top"), ("template", "r", "top", "--set", "sub.deeper.y=2")],
                         ids=" ".join)
def test_scopes_are_helms(argv: tuple[str, ...], workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours, helm = ours_in(workdir, list(argv), monkeypatch), helm_in(workdir, list(argv))
    assert helm[2] == 0 and "common.Values|common.Values|common.Values" in helm[0]
    assert "seen: set by sub|1|false|map[string]interface {}|map[string]interface {}|1" in helm[0]
    assert ours == helm
