"""The cross-run cache of compiled templates (runner.template.cache)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import runner.template as template
from runner.engine import render_chart
from runner.funcs import function_map
from runner.template import Template, cache, runtime
from runner.template.runtime import CodeTree

PAD = "# " + "a line ahead of the template " * 5 + "\n"
HELPERS = """{{/* helpers */}}
{{- define "t.name" -}}
{{- default "app" .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "t.labels" -}}
app.kubernetes.io/name: {{ template "t.name" . }}
app.kubernetes.io/part-of: {{ .part | default "none" | quote }}
{{- end -}}
""" + PAD
MAIN = PAD + """kind: ConfigMap
metadata:
  name: {{ template "t.name" . }}
data:
{{- range $k, $v := .data }}
  {{ $k }}: {{ $v | quote }}
{{- end }}
{{- if .extra }}
  extra: {{ .extra | upper }}
{{- else }}
  extra: none
{{- end }}
"""
DATA = {"name": "demo", "data": {"b": "2", "a": "1"}, "extra": "yes"}


@pytest.fixture(autouse=True)
def cache_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private cache directory, and no parses left over in this process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("DEPLOY_RUNNER_NO_CACHE", raising=False)
    fresh_process()
    runtime.pending_entries()  # dropped: what other tests left unwritten
    yield tmp_path / "xdg" / "deploy-runner" / "templates"
    fresh_process()


def render(text: str = MAIN, name: str = "c/templates/cm.yaml") -> str:
    """A render as the engine does one: entries are written once it is done."""
    tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
    try:
        tmpl.parse("c/templates/_helpers.tpl", HELPERS)
        tmpl.parse(name, text)
        return tmpl.execute(name, DATA)
    finally:
        template.store_pending()


def packs(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())


def stored(pack: Path) -> dict[str, object]:
    """The entries of a pack file, by key: marshal after the header line naming the pack."""
    import marshal

    data = pack.read_bytes()
    header = b"drtpk3\n" + pack.name.encode() + b"\n"
    assert data.startswith(header)
    entries = marshal.loads(data[len(header):])
    assert isinstance(entries, dict)
    return entries


def entries(root: Path) -> list[str]:
    """The keys of every entry stored, whichever pack holds it."""
    return sorted(key for pack in packs(root) for key in stored(pack))


MAIN_KEY = cache.entry_key("", MAIN, "00")


def main_pack(root: Path) -> Path:
    """The pack file holding MAIN's entry (renders outside a chart share one pack)."""
    found = [pack for pack in packs(root) if MAIN_KEY in stored(pack)]
    assert len(found) == 1
    return found[0]


def fresh_process() -> None:
    """What a new run sees: empty in-process caches, the disk cache as left."""
    template._CACHE.clear()
    cache._LOADED.clear()
    cache._DEFAULT.clear()


def test_a_parse_is_stored_and_reused_with_identical_output(cache_home: Path) -> None:
    first = render()
    assert len(entries(cache_home)) == 2  # the helpers and the template
    assert len(packs(cache_home)) == 1  # one file for both
    fresh_process()
    assert cache.load(MAIN_KEY) is not None
    assert render() == first


def test_output_is_identical_with_and_without_the_cache(monkeypatch: pytest.MonkeyPatch,
                                                        cache_home: Path) -> None:
    cached_cold, cached_warm = render(), (fresh_process(), render())[1]
    fresh_process()
    monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", "1")
    assert render() == cached_cold == cached_warm
    assert len(entries(cache_home)) == 2  # nothing written while turned off


@pytest.mark.parametrize("garbage", [b"", b"not marshal", b"drtpk3\nwrong-key\n\xe3junk"])
def test_a_corrupt_pack_is_ignored_and_replaced(cache_home: Path, garbage: bytes) -> None:
    expected = render()
    path = main_pack(cache_home)
    path.write_bytes(garbage)
    fresh_process()
    assert render() == expected
    assert path.read_bytes() != garbage
    assert MAIN_KEY in stored(path)
    fresh_process()
    assert cache.load(MAIN_KEY) is not None


def test_a_truncated_pack_is_ignored(cache_home: Path) -> None:
    expected = render()
    path = main_pack(cache_home)
    path.write_bytes(path.read_bytes()[:-40])
    fresh_process()
    assert render() == expected
    fresh_process()
    assert cache.load(MAIN_KEY) is not None


@pytest.mark.parametrize("payload", [{"not": "a parse"}, ([], (("t", (True, False, 1), "code?", b""),))])
def test_an_entry_holding_something_else_is_ignored(cache_home: Path, payload: object) -> None:
    import marshal

    expected = render()
    path = main_pack(cache_home)
    header = b"drtpk3\n" + path.name.encode() + b"\n"
    path.write_bytes(header + marshal.dumps({MAIN_KEY: payload}))
    fresh_process()
    assert cache.load(MAIN_KEY) is None
    fresh_process()
    assert render() == expected


FAILING = PAD + """{{ $ok := "fine" }}{{ $ok }}
{{- define "t.deep" }}{{ .name.first.second }}{{ end }}
{{ template "t.deep" . }}
"""


def failure(text: str, data: object) -> str:
    tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
    tmpl.parse("c/templates/bad.yaml", text)
    with pytest.raises(template.ExecError) as info:
        tmpl.execute("c/templates/bad.yaml", data)
    template.store_pending()
    return str(info.value)


@pytest.mark.parametrize(
    ("text", "data", "quoted"),
    [
        (FAILING, {"name": "flat"}, "<.name.first.second>"),
        (PAD + '{{ printf "%d" (add 1 (index .list 3)) }}', {"list": [1]}, "<index .list 3>"),
        (PAD + "{{ range $i, $e := 3 }}{{ end }}", {}, "<3>"),
        (PAD + '{{ template "missing" . }}', {}, '<{{template "missing" .}}>'),
        (PAD + "{{ $u = 1 }}", {}, "<1>"),
    ],
)
def test_an_error_from_cached_code_names_the_node_as_a_fresh_compile_does(
    cache_home: Path, text: str, data: object, quoted: str
) -> None:
    """Code loaded from the cache has no parse tree: the node an error quotes is found
    again by parsing the text (runtime.FileCode.node_text)."""
    fresh = failure(text, data)
    fresh_process()
    assert len(entries(cache_home)) == 1
    assert failure(text, data) == fresh
    assert quoted in fresh


def test_a_changed_template_is_parsed_again(cache_home: Path) -> None:
    before = render()
    fresh_process()
    changed = MAIN.replace("extra: {{ .extra | upper }}", "extra: {{ .extra | title }}")
    after = render(changed)
    assert "extra: YES" in before
    assert "extra: Yes" in after
    assert len(entries(cache_home)) == 3


def test_the_same_text_under_another_name_shares_the_entry(cache_home: Path) -> None:
    first = render(name="a/templates/cm.yaml")
    fresh_process()
    assert render(name="b/templates/cm.yaml") == first
    assert len(entries(cache_home)) == 2
    broken = MAIN + "{{ .name.deeper }}"
    for name in ("a/templates/x.yaml", "b/templates/x.yaml"):
        fresh_process()
        with pytest.raises(template.ExecError, match=f"template: {name}:.* executing \"{name}\" at <.name.deeper>"):
            render(broken, name=name)
    assert len(entries(cache_home)) == 3


def test_a_text_naming_its_own_template_keeps_its_own_entry(cache_home: Path) -> None:
    """A define may be named after the file: such texts are not shared."""
    text = "{{/* " + PAD + ' */}}{{ define "c/templates/own.yaml" }}own{{ end }}'
    tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
    tmpl.parse("c/templates/own.yaml", text)
    assert tmpl.execute("c/templates/own.yaml", {}) == "own"
    template.store_pending()
    assert cache.load(cache.entry_key("c/templates/own.yaml", text, "00")) is not None
    assert cache.load(cache.entry_key("", text, "00")) is None


def test_an_unwritable_cache_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    assert "extra: YES" in render()


def test_parse_errors_are_not_cached(cache_home: Path) -> None:
    broken = MAIN + "{{ if }}"
    for _ in range(2):
        fresh_process()
        with pytest.raises(template.ParseError, match="missing value for if"):
            render(broken)
    assert len(entries(cache_home)) == 1  # the helpers only
    assert MAIN_KEY not in entries(cache_home)
    assert template._worth_persisting(MAIN) and template._worth_persisting(HELPERS)


def test_a_chart_renders_the_same_cold_warm_and_uncached(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("name: demo\nextra: 'yes'\ndata: {a: x, b: y}\n")
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    (chart / "templates" / "cm.yaml").write_text(MAIN.replace(" . }}", " .Values }}")
                                                 .replace(".data", ".Values.data")
                                                 .replace(".extra", ".Values.extra"))
    outputs = []
    for no_cache in ("", "", "1"):
        fresh_process()
        monkeypatch.setenv("DEPLOY_RUNNER_NO_CACHE", no_cache)
        outputs.append(render_chart(str(chart), release_name="r", namespace="n").texts())
    assert outputs[0] == outputs[1] == outputs[2]
    assert "extra: YES" in outputs[0]["c/templates/cm.yaml"]


def test_short_texts_with_actions_are_stored_and_plain_texts_are_not(cache_home: Path) -> None:
    tmpl = Template("gotpl", funcs=function_map())
    tmpl.parse("c/templates/short.yaml", "name: {{ .name }}")
    tmpl.parse("c/templates/plain.yaml", "kind: ConfigMap\n" * 100)
    template.store_pending()
    assert len(entries(cache_home)) == 1
    fresh_process()
    tmpl = Template("gotpl", funcs=function_map())
    tmpl.parse("c/templates/short.yaml", "name: {{ .name }}")
    assert isinstance(tmpl.lookup("c/templates/short.yaml"), CodeTree)  # read from the entry
    assert tmpl.execute("c/templates/short.yaml", {"name": "x"}) == "name: x"


def stored_functions(text: str) -> list[object]:
    """The functions of the entry of `text`: code objects, or sources never called."""
    import marshal

    entry = cache.load(cache.entry_key("", text, "00"))
    assert entry is not None
    return [f for _, _, code, _ in entry[1] for f in marshal.loads(code)]


def test_code_that_never_ran_is_stored_as_source_and_compiled_by_the_run_that_calls_it(
    cache_home: Path,
) -> None:
    from runner.template import compiler

    branch = "".join(f"{{{{ if .on }}}}{{{{ .on }}}}{i}{{{{ end }}}}," for i in range(3 * compiler._CHUNK))
    text = PAD + "start {{ if .on }}" + branch + "{{ end }}end"

    def run(on: bool) -> str:
        tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
        tmpl.parse("c/templates/x.yaml", text)
        out = tmpl.execute("c/templates/x.yaml", {"on": on})
        template.store_pending()
        return out

    assert run(False).endswith("start end")
    assert any(isinstance(f, str) for f in stored_functions(text))
    fresh_process()
    assert run(True).endswith("start " + "".join(f"true{i}," for i in range(3 * compiler._CHUNK)) + "end")
    assert not any(isinstance(f, str) for f in stored_functions(text))


def test_the_same_text_twice_in_one_render_is_parsed_once(cache_home: Path) -> None:
    """A library vendored under two charts: the second copy shares the first's code
    before any entry is written."""
    tmpl = Template("gotpl", funcs=function_map(), missingkey="zero")
    tmpl.parse("a/templates/cm.yaml", MAIN)
    tmpl.parse("b/templates/cm.yaml", MAIN)
    assert not isinstance(tmpl.lookup("a/templates/cm.yaml"), CodeTree)
    assert isinstance(tmpl.lookup("b/templates/cm.yaml"), CodeTree)
    tmpl.parse("c/templates/_helpers.tpl", HELPERS)
    assert tmpl.execute("b/templates/cm.yaml", DATA) == tmpl.execute("a/templates/cm.yaml", DATA)
    template.store_pending()
    assert len(entries(cache_home)) == 2


def test_a_chart_render_keeps_its_entries_in_one_pack_read_back_whole(tmp_path: Path,
                                                                      cache_home: Path) -> None:
    """A cold render writes one file for all its templates; a warm one reads it and writes
    nothing; an edited template replaces its own entry in the pack and keeps the others."""
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("name: demo\n")
    (chart / "templates" / "_helpers.tpl").write_text(HELPERS)
    (chart / "templates" / "a.yaml").write_text(PAD + "a: {{ template \"t.name\" .Values }}\n")
    (chart / "templates" / "b.yaml").write_text(PAD + "b: {{ .Values.name | upper }}\n")

    def render_c() -> dict[str, str]:
        fresh_process()
        return dict(render_chart(str(chart), release_name="r", namespace="n").texts())

    cold = render_c()
    [pack] = packs(cache_home)
    assert len(stored(pack)) == 3
    written = pack.stat().st_mtime_ns
    assert render_c() == cold
    assert pack.stat().st_mtime_ns == written  # nothing new: not written again
    before = set(stored(pack))
    (chart / "templates" / "b.yaml").write_text(PAD + "b: {{ .Values.name | title }}\n")
    edited = render_c()
    assert edited["c/templates/b.yaml"].endswith("b: Demo\n")
    assert edited["c/templates/a.yaml"] == cold["c/templates/a.yaml"]
    assert packs(cache_home) == [pack]
    assert len(stored(pack)) == 3  # the old b's entry dropped, the others kept
    assert len(before & set(stored(pack))) == 2


def test_a_render_stores_its_own_entries_and_leaves_another_renders_pending(cache_home: Path) -> None:
    """Renders at once in one process (a spec's releases): each pack gets the entries its
    own set parsed, whichever render finishes first."""
    first, second = (Template("gotpl", funcs=function_map(), missingkey="zero") for _ in range(2))
    first.pack = template.open_pack(["a/templates/cm.yaml"])
    second.pack = template.open_pack(["b/templates/_helpers.tpl"])
    first.parse("a/templates/cm.yaml", MAIN)
    second.parse("b/templates/_helpers.tpl", HELPERS)
    template.store_pending(first.pack)
    assert entries(cache_home) == [MAIN_KEY]
    template.store_pending(second.pack)
    assert len(packs(cache_home)) == 2
    assert sorted(entries(cache_home)) == sorted([MAIN_KEY, cache.entry_key("", HELPERS, "00")])
