"""Source positions (runner.template.positions): which template line wrote each output line.

Expectations come from the template texts: a marker (`@name`) sits on the line
a user would point at; the output line holding the same marker (or the
line's text) must trace back to it.
"""

from __future__ import annotations

from typing import Any

from runner.funcs import function_map
from runner.golang.gofunc import ANY, GoFunc
from runner.template import SourcePos, Template

FILE = "c/templates/cm.yaml"
HELPERS_FILE = "c/templates/_helpers.tpl"

HELPERS = """\
{{- define "c.labels" -}}
app: demo          # @lab-app
tier: {{ .tier }}  # @lab-tier
{{- end -}}
{{- define "c.outer" -}}
outer: true        # @outer
{{ include "c.labels" . }}
{{- end -}}
"""


def line_of(text: str, marker: str) -> int:
    """1-based line of the template text holding `marker` (exactly once)."""
    lines = [i for i, line in enumerate(text.split("\n"), 1) if marker in line]
    assert len(lines) == 1, (marker, lines)
    return lines[0]


def template_set(files: dict[str, str], missingkey: str = "zero") -> Template:
    tset = Template("gotpl", funcs=function_map(), missingkey=missingkey)

    def include(name: str, data: Any) -> str:
        return tset.execute(name, data)

    tset.add_funcs({"include": GoFunc("include", include, ("string", ANY), returns="string", fallible=True)})
    for name, text in files.items():
        tset.parse(name, text)
    return tset


def traced(src: str, data: Any = None, helpers: str = HELPERS) -> tuple[str, Any]:
    tset = template_set({HELPERS_FILE: helpers, FILE: src})
    out, smap = tset.execute_with_positions(FILE, data or {})
    assert out == tset.execute(FILE, data or {})  # tracking never changes the output
    return out, smap


def output_line(out: str, needle: str, nth: int = 0) -> int:
    found = [i for i, line in enumerate(out.split("\n"), 1) if needle in line]
    return found[nth]


def test_text_and_actions_map_to_their_lines_through_trim_markers() -> None:
    src = """\
{{- /* a comment, trimmed away */ -}}
apiVersion: v1                        # @api
kind: ConfigMap
metadata:
  name: {{ .name }}                   # @name
  {{- if .on }}
  enabled: {{ .on }}                  # @enabled
  {{- end }}
data:
  k: v                                # @data
"""
    out, smap = traced(src, {"name": "n", "on": True})
    for marker in ("@api", "@name", "@enabled", "@data"):
        assert smap.position_of_line(output_line(out, marker)) == SourcePos(FILE, line_of(src, marker))


def test_a_line_starting_with_an_action_points_at_the_action() -> None:
    src = 'a: 1\n{{ .key }}: value # @key\n{{- "\\n" }}b: 2 # @b\n'
    out, smap = traced(src, {"key": "k"})
    assert smap.position_of_line(output_line(out, "@key")).line == line_of(src, "@key")
    # "b: 2" follows the newline an action printed: the text node's line.
    assert smap.position_of_line(output_line(out, "@b")).line == line_of(src, "@b")


def test_range_iterations_point_at_the_loop_body() -> None:
    src = """\
items:
{{- range $i, $v := .items }}
  - name: {{ $v }}   # @item
    index: {{ $i }}  # @index
{{- end }}
done: true           # @done
"""
    out, smap = traced(src, {"items": ["a", "b", "c"]})
    for n in range(3):
        assert smap.position_of_line(output_line(out, "@item", n)).line == line_of(src, "@item")
        assert smap.position_of_line(output_line(out, "@index", n)).line == line_of(src, "@index")
    assert smap.position_of_line(output_line(out, "@done")).line == line_of(src, "@done")


def test_include_output_is_attributed_to_the_call_and_its_define() -> None:
    src = """\
metadata:
  labels:
    {{- include "c.labels" . | nindent 4 }}  {{- /* @call */}}
  name: x  # @after
"""
    out, smap = traced(src, {"tier": "web"})
    call = line_of(src, "@call")
    for marker in ("@lab-app", "@lab-tier"):
        pos = smap.position_of_line(output_line(out, marker))
        assert (pos.path, pos.line) == (FILE, call)
        assert (pos.define, pos.define_path, pos.define_line) == ("c.labels", HELPERS_FILE, line_of(HELPERS, marker))
    assert smap.position_of_line(output_line(out, "@after")) == SourcePos(FILE, line_of(src, "@after"))


def test_nested_includes_report_the_innermost_define() -> None:
    src = 'spec:\n  {{- include "c.outer" . | nindent 2 }} {{- /* @call */}}\n'
    out, smap = traced(src, {"tier": "db"})
    call = line_of(src, "@call")
    outer = smap.position_of_line(output_line(out, "@outer"))
    assert (outer.line, outer.define, outer.define_line) == (call, "c.outer", line_of(HELPERS, "@outer"))
    inner = smap.position_of_line(output_line(out, "@lab-tier"))
    assert (inner.line, inner.define, inner.define_line) == (call, "c.labels", line_of(HELPERS, "@lab-tier"))


def test_template_calls_are_attributed_to_the_call_site() -> None:
    src = 'labels:\n{{ template "c.labels" . }} {{- /* @call */}}\nend: 1 # @end\n'
    out, smap = traced(src, {"tier": "t"})
    pos = smap.position_of_line(output_line(out, "@lab-tier"))
    assert (pos.path, pos.line) == (FILE, line_of(src, "@call"))
    assert (pos.define, pos.define_line) == ("c.labels", line_of(HELPERS, "@lab-tier"))
    assert smap.position_of_line(output_line(out, "@end")).line == line_of(src, "@end")


def test_an_include_transformed_beyond_recognition_keeps_the_call_site() -> None:
    src = 'x: {{ include "c.labels" . | b64enc }} # @call\n'
    out, smap = traced(src, {"tier": "t"})
    assert smap.position_of_line(1) == SourcePos(FILE, line_of(src, "@call"))


def test_no_value_removal_keeps_offsets() -> None:
    tset = template_set({FILE: "a: {{ .m.missing }}{{ .m.missing }}x\nb: 1 # @b\n"}, missingkey="default")
    out, smap = tset.execute_with_positions(FILE, {"m": {}})
    assert "<no value>" in out
    cleaned = smap.without("<no value>")
    assert cleaned.text == out.replace("<no value>", "")
    assert cleaned.position_of_line(2).line == 2
    assert cleaned.position_at(cleaned.text.index("x")) == SourcePos(FILE, 1)


def test_untracked_execution_records_nothing() -> None:
    tset = template_set({FILE: "a: {{ include \"c.labels\" . }}\n", HELPERS_FILE: HELPERS})
    assert tset.execute(FILE, {"tier": "t"}) == tset.execute_with_positions(FILE, {"tier": "t"})[0]
    from runner.template.positions import TRACKING

    assert TRACKING.rec is None


def test_tpl_output_points_at_the_call_without_a_define() -> None:
    tset = template_set({HELPERS_FILE: HELPERS})

    def tpl(text: str, data: Any) -> str:
        tset.parse("gotpl", text)
        return tset.execute("gotpl", data)

    tset.add_funcs({"tpl": GoFunc("tpl", tpl, ("string", ANY), returns="string", fallible=True)})
    src = 'a: 1\n{{ tpl "b: {{ .x }}\\nc: {{ include \\"c.labels\\" . }}" . }} {{- /* @tpl */}}\nd: 2 # @d\n'
    tset.parse(FILE, src)
    out, smap = tset.execute_with_positions(FILE, {"x": "X", "tier": "t"})
    assert out == tset.execute(FILE, {"x": "X", "tier": "t"})
    assert smap.position_of_line(output_line(out, "b: X")) == SourcePos(FILE, line_of(src, "@tpl"))
    # An include inside the tpl text is still traced to its define.
    pos = smap.position_of_line(output_line(out, "@lab-tier"))
    assert (pos.line, pos.define, pos.define_line) == (line_of(src, "@tpl"), "c.labels", line_of(HELPERS, "@lab-tier"))
    assert smap.position_of_line(output_line(out, "@d")).line == line_of(src, "@d")


def test_source_positions_compare_and_hash_by_every_field() -> None:
    assert SourcePos("a.yaml", 3) == SourcePos("a.yaml", 3, None, None, None)
    assert SourcePos("a.yaml", 3) != SourcePos("a.yaml", 3, "d", "b.yaml", 7)
    assert SourcePos("a.yaml", 3) != ("a.yaml", 3, None, None, None)
    assert len({SourcePos("a.yaml", 3), SourcePos("a.yaml", 3)}) == 1
