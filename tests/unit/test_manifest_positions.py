"""Documents remember their template file and line (sort_manifests with SourceMaps).

Expectations come from the template texts written here (a marker `@name` on
the line a user would point at), never from rendered output. The corpus
tests check that tracking leaves every chart's output byte-identical.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from runner.engine import render_chart
from runner.manifest import Manifest, sort_manifests, split_with_lines
from tests.corpus import CHARTS_DIR, chart_names

HELPERS = """\
{{- define "c.labels" -}}
app: demo   # @lab-app
{{- end -}}
{{- define "c.head" -}}
apiVersion: v1   # @head-api
kind: Service
metadata:
  name: three
{{- end -}}
"""

MULTI = """\
{{- /* documents of one file */ -}}

# the first document starts with this comment  @doc1
apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  labels:
    {{- include "c.labels" . | nindent 4 }}   {{- /* @labels-call */}}
data:
  gone: "{{ .Values.missing }}{{ .Values.missing }}"
  after: "x"   # @after-no-value
---
{{- if .Values.enabled }}
apiVersion: v1   # @doc2
kind: Secret
metadata:
  name: two
{{- end }}
---
{{ include "c.head" . }}  {{- /* @doc3-call */}}
{{- range .Values.jobs }}
---
apiVersion: batch/v1   # @job
kind: Job
metadata:
  name: {{ . }}
  annotations:
    helm.sh/hook: pre-install
{{- end }}
"""

PATH = "c/templates/multi.yaml"


def line_of(text: str, marker: str) -> int:
    lines = [i for i, line in enumerate(text.split("\n"), 1) if marker in line]
    assert len(lines) == 1, (marker, lines)
    return lines[0]


def doc_line(doc: Manifest, needle: str) -> int:
    return next(i for i, line in enumerate(doc.content.split("\n"), 1) if needle in line)


@pytest.fixture
def sorted_docs(tmp_path: Path) -> Any:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("enabled: true\njobs: [a, b]\n")
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    (chart / "templates" / "multi.yaml").write_text(MULTI)
    result = render_chart(str(chart), track_positions=True)
    assert result.texts() == render_chart(str(chart)).texts()
    return sort_manifests(result.texts(), positions=result.positions())


def by_name(docs: Any, name: str) -> Any:
    return next(d for d in docs.manifests if d.head.name == name)


def test_each_document_reports_the_line_its_content_starts_on(sorted_docs: Any) -> None:
    one, two, three = (by_name(sorted_docs, n) for n in ("one", "two", "three"))
    assert one.source_line == line_of(MULTI, "@doc1")
    assert two.source_line == line_of(MULTI, "@doc2")
    assert three.source_line == line_of(MULTI, "@doc3-call")
    assert one.source_for(1) == (PATH, line_of(MULTI, "@doc1"))


def test_lines_inside_a_document(sorted_docs: Any) -> None:
    one = by_name(sorted_docs, "one")
    assert one.source_for(doc_line(one, "kind: ConfigMap")) == (PATH, line_of(MULTI, "kind: ConfigMap"))
    assert one.source_for(doc_line(one, "@lab-app")) == (PATH, line_of(MULTI, "@labels-call"))
    pos = one.source_position(doc_line(one, "@lab-app"))
    assert (pos.define, pos.define_line) == ("c.labels", line_of(HELPERS, "@lab-app"))
    # `<no value>` removed from the output does not shift later lines.
    assert one.source_for(doc_line(one, "@after-no-value")) == (PATH, line_of(MULTI, "@after-no-value"))
    assert one.source_for(len(one.content.split("\n")) + 1) is None


def test_a_document_made_by_an_include(sorted_docs: Any) -> None:
    three = by_name(sorted_docs, "three")
    pos = three.source_position(1)
    assert (pos.path, pos.line) == (PATH, line_of(MULTI, "@doc3-call"))
    assert (pos.define, pos.define_line) == ("c.head", line_of(HELPERS, "@head-api"))


def test_hooks_from_a_range_point_at_the_loop_body(sorted_docs: Any) -> None:
    assert [h.name for h in sorted_docs.hooks] == ["a", "b"]
    for hook in sorted_docs.hooks:
        assert hook.source_line == line_of(MULTI, "@job")
        assert hook.source_for(4) == (PATH, line_of(MULTI, "name: {{ . }}"))


def test_without_positions_documents_have_no_source() -> None:
    docs = sort_manifests({"c/templates/a.yaml": "kind: A\nmetadata:\n  name: a\n"})
    assert docs.manifests[0].source_line is None
    assert docs.manifests[0].source_for(1) is None


def test_chunks_know_their_offset() -> None:
    text = "\n\n  a: 1\n---\nb: 2\n--- c: 3\n"
    for chunk in split_with_lines(text):
        assert text[chunk.offset : chunk.offset + len(chunk.content)] == chunk.content


# ------------------------------------------------------------------ the corpus

CHARTS = CHARTS_DIR
CORPUS = chart_names()


def _values(name: str) -> dict[str, Any]:
    path = CHARTS / "_values" / f"{name}.yaml"
    return yaml.safe_load(path.read_text()) if path.exists() else {}


@pytest.mark.parametrize("name", CORPUS)
def test_tracking_keeps_corpus_output_byte_identical(name: str) -> None:
    values = _values(name)
    first = render_chart(str(CHARTS / name), values).texts()
    second = render_chart(str(CHARTS / name), values).texts()  # random functions differ here
    tracked = render_chart(str(CHARTS / name), values, track_positions=True)
    texts = tracked.texts()
    assert texts.keys() == first.keys()
    for path, text in texts.items():
        if first[path] == second[path]:
            assert text == first[path], path
            continue
        lines, a, b = text.split("\n"), first[path].split("\n"), second[path].split("\n")
        assert len(lines) == len(a), path
        assert all(x == y for x, y, z in zip(lines, a, b, strict=False) if y == z), path
    manifests = {p: t for p, t in texts.items() if not p.endswith("NOTES.txt")}
    docs = sort_manifests(manifests, positions=tracked.positions())
    assert docs.manifests, f"{name} rendered no document"
    for doc in [*docs.manifests, *docs.hooks]:
        path = doc.name if isinstance(doc, Manifest) else doc.path
        assert doc.source_for(1) is not None and doc.source_for(1)[0] == path
