"""Fuzzing the parsers of untrusted input with hypothesis: errors of ours, no hang, no crash.

Targets: the --set family (runner.chart.strvals), YAML (runner.encoding.goyaml),
a chart's Chart.yaml and values.yaml through loading and `.Values`, the
template lexer and parser, and release-record decoding. Each example either
succeeds or raises the target's documented error (a RunnerError, or the
decoder's own GoYAMLError / StrvalsError / UnmarshalError); any other
exception, a RecursionError included, fails. An example running past
EXAMPLE_SECONDS is a hang (SIGALRM), and the work runs on a deep stack as a
command does (runner.deepstack), so deep input meets the same limits.

Time: FUZZ_SECONDS per target (default 3, so `make test` stays quick);
`make fuzz` runs each for FUZZ_SECONDS=600. Examples run are counted and
printed by test_figures (pytest -s).
"""

from __future__ import annotations

import base64
import gzip
import json
import os
import signal
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from runner.deepstack import run_deep
from runner.errors import RunnerError

SECONDS = float(os.environ.get("FUZZ_SECONDS", "3"))
EXAMPLE_SECONDS = 20
BATCH = 50
COUNTS: Counter[str] = Counter()
CHARTS = Path(__file__).resolve().parents[3] / "shared" / "charts"


class Hang(Exception):
    """An example ran past EXAMPLE_SECONDS."""


def _alarm(_signum: int, _frame: Any) -> None:
    raise Hang(f"an example ran over {EXAMPLE_SECONDS} s")


def check(target: str, work: Callable[[], Any], allowed: tuple[type[BaseException], ...]) -> None:
    """Run one example: success or an allowed error; a hang or any other error fails."""
    COUNTS[target] += 1
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, EXAMPLE_SECONDS)
    try:
        run_deep(work)
    except allowed:
        pass
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def fuzz(test: Callable[[], None]) -> None:
    """Run a @given test in batches until SECONDS have passed."""
    end = time.monotonic() + SECONDS
    while True:
        test()
        if time.monotonic() >= end:
            return


SETTINGS = settings(max_examples=BATCH, deadline=None, database=None, derandomize=False,
                    suppress_health_check=list(HealthCheck))


def mutated(texts: list[str], alphabet: str) -> st.SearchStrategy[str]:
    """Real texts with a few edits: a slice removed, or text inserted, at random places."""
    edit = st.tuples(st.integers(0, 10_000), st.integers(0, 40), st.text(alphabet, max_size=12))

    def apply(base: str, edits: list[tuple[int, int, str]]) -> str:
        for at, cut, insert in edits:
            at %= len(base) + 1
            base = base[:at] + insert + base[at + cut % 4:]
        return base

    return st.builds(apply, st.sampled_from(texts), st.lists(edit, max_size=4))


def _corpus(pattern: str, limit: int = 40) -> list[str]:
    paths = sorted(CHARTS.glob(pattern))[:limit]
    return [p.read_text(encoding="utf-8", errors="replace")[:4000] for p in paths] or ["a: 1\n"]


# -- --set grammar ------------------------------------------------------------------------

SET_ALPHABET = "ab.,=[]{}\\-019 \"'\n:x\u00e9"
SET_TEXT = st.text(SET_ALPHABET, max_size=40) | st.text(max_size=20)


def test_set_parsers() -> None:
    from runner.chart import strvals

    @SETTINGS
    @given(text=SET_TEXT, mode=st.sampled_from(["typed", "string", "json", "literal", "file"]))
    def one(text: str, mode: str) -> None:
        reader = (lambda path: path) if mode == "file" else None
        check(f"--set ({mode})", lambda: strvals.parse_into(text, {}, mode, reader),
              (strvals.StrvalsError, RunnerError))

    fuzz(one)


def test_set_json_values() -> None:
    from runner.chart import strvals

    json_text = st.recursive(
        st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=5),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=8,
    ).map(lambda v: json.dumps(v))  # NaN and Infinity included: Go refuses them
    deep = st.integers(1, 12_000).map(lambda n: "[" * n + "]" * n)

    @SETTINGS
    @given(key=st.sampled_from(["a", "a.b", "a[0]", "a[1].b"]), value=json_text | deep)
    def one(key: str, value: str) -> None:
        check("--set-json (JSON)", lambda: strvals.parse_into(f"{key}={value}", {}, "json"),
              (strvals.StrvalsError, RunnerError))

    fuzz(one)


# -- YAML ---------------------------------------------------------------------------------

YAML_ALPHABET = "ab:- \n\t[]{},&*!|>'\"#?%@`.0123456789<~\\\x00\u00e9\ufeff"


def _yaml_snippets() -> st.SearchStrategy[str]:
    scalar = st.sampled_from(["a", "1", "~", "yes", ".nan", "0x1F", "'q'", '"d\\n"', "2001-01-01",
                              "!!int 3", "!!binary aGk=", "&x a", "*x", "<<", "|\n  t", ">\n  f"])
    return st.recursive(
        scalar,
        lambda inner: st.builds(lambda k, v: f"{k}: {v}", scalar, inner)
        | st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]")
        | st.lists(inner, max_size=3).map(lambda xs: "\n".join("- " + x for x in xs))
        | st.lists(st.tuples(scalar, inner), max_size=3).map(
            lambda kvs: "{" + ", ".join(f"{k}: {v}" for k, v in kvs) + "}")
        | st.builds(lambda k, v: f"{k}:\n  " + v.replace("\n", "\n  "), scalar, inner),
        max_leaves=12,
    )


YAML_TEXT = (st.text(YAML_ALPHABET, max_size=80) | _yaml_snippets()
             | mutated(_corpus("*/values.yaml"), YAML_ALPHABET))


def test_yaml_decoder() -> None:
    from runner.encoding import goyaml

    readers = {
        "load": lambda t: goyaml.load(t),
        "load ints": lambda t: goyaml.load(t, ints=True),
        "load_all": lambda t: goyaml.load_all(t),
        "load_fields": lambda t: goyaml.load_fields(t, ("apiVersion", "kind", "metadata")),
        "bytes": lambda t: goyaml.load(t.encode("utf-8", "surrogatepass")[::-1][::-1]),
    }

    @SETTINGS
    @given(text=YAML_TEXT, reader=st.sampled_from(sorted(readers)))
    def one(text: str, reader: str) -> None:
        check(f"YAML ({reader})", lambda: readers[reader](text), (goyaml.GoYAMLError, RunnerError))

    fuzz(one)


def test_yaml_alias_and_depth_limits() -> None:
    from runner.encoding import goyaml

    def laughs(levels: int, width: int) -> str:
        lines = ["a0: &a0 [" + ",".join(["x"] * width) + "]"]
        lines += [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * width) + "]" for i in range(1, levels)]
        return "\n".join(lines)

    nested = st.builds(lambda n, o, c: "x: " + o * n + c * n, st.integers(1, 20_000),
                       st.sampled_from(["[", "{a: "]), st.sampled_from(["]", "}"]))
    compact = st.integers(1, 20_000).map(lambda n: "a:\n" + "- " * n + "x\n")

    @SETTINGS
    @given(text=st.builds(laughs, st.integers(1, 10), st.integers(1, 12)) | nested | compact)
    def one(text: str) -> None:
        check("YAML (aliases, depth)", lambda: goyaml.load(text), (goyaml.GoYAMLError,))

    fuzz(one)


# -- charts: Chart.yaml, values.yaml, .Values ---------------------------------------------

CHART_YAML = mutated(_corpus("*/Chart.yaml"), YAML_ALPHABET) | st.builds(
    lambda extra: "apiVersion: v2\nname: c\nversion: 0.1.0\n" + extra, _yaml_snippets())


def test_chart_loading_and_values() -> None:
    from runner.chart.loader import load_files
    from runner.chart.prepare import prepare_render_values

    @SETTINGS
    @given(chart_yaml=CHART_YAML, values=YAML_TEXT)
    def one(chart_yaml: str, values: str) -> None:
        def work() -> None:
            chart = load_files([("Chart.yaml", chart_yaml.encode("utf-8", "surrogatepass")),
                                ("values.yaml", values.encode("utf-8", "surrogatepass")),
                                ("templates/cm.yaml", b"x: {{ .Values | toJson }}\n")])
            prepare_render_values(chart, {})

        check("Chart.yaml + values.yaml", work, (RunnerError,))

    fuzz(one)


# -- templates ----------------------------------------------------------------------------

TOKENS = ["{{", "}}", "{{-", "-}}", "{{/*", "*/}}", " ", "\n", ".", ".Values", "$", "$x", ":=", "=",
          "|", "(", ")", '"s"', "`r`", "'c'", "1", "-1.5e3", "0x1F", "if", "else", "else if", "end",
          "range", "with", "define", '"n"', "template", "block", "break", "continue", "nil", "true",
          "include", "printf", ",", "text", "\u00e9", "\udcff"]
TEMPLATE_TEXT = st.lists(st.sampled_from(TOKENS), max_size=40).map("".join) | mutated(
    _corpus("*/templates/*.yaml", 60), "{}()|.$-\"`' \nifendrangewith")


def test_template_lexer_and_parser() -> None:
    from runner.template.errors import TemplateError
    from runner.template.parse import parse_text

    @SETTINGS
    @given(text=TEMPLATE_TEXT)
    def one(text: str) -> None:
        check("template lex + parse", lambda: parse_text("c/templates/t.yaml", text), (TemplateError,))

    fuzz(one)


# -- release records ----------------------------------------------------------------------

def _record(value: Any, zipped: bool) -> str:
    payload = json.dumps(value).encode()
    return base64.b64encode(gzip.compress(payload) if zipped else payload).decode()


RELEASE = st.fixed_dictionaries(
    {"name": st.just("r"), "version": st.just(3)},
    optional={
        "info": st.dictionaries(st.sampled_from(["status", "notes", "last_deployed", "resources"]),
                                st.none() | st.text(max_size=5) | st.integers() | st.lists(st.none())),
        "chart": st.none() | st.integers() | st.dictionaries(
            st.sampled_from(["metadata", "templates", "values", "schema", "files", "lock"]),
            st.none() | st.text(max_size=5) | st.lists(st.dictionaries(
                st.sampled_from(["name", "data"]), st.text(max_size=5) | st.integers()), max_size=2)),
        "config": st.none() | st.dictionaries(st.text(max_size=3), st.floats() | st.text(max_size=3)),
        "hooks": st.none() | st.lists(st.dictionaries(
            st.sampled_from(["name", "events", "weight", "last_run"]),
            st.text(max_size=3) | st.integers() | st.lists(st.text(max_size=3))), max_size=2),
        "manifest": st.none() | st.text(max_size=10) | st.integers(),
        "namespace": st.text(max_size=5) | st.lists(st.none()),
    },
)
RECORD = (st.builds(_record, RELEASE, st.booleans())
          | st.builds(_record, st.recursive(st.none() | st.floats() | st.text(max_size=4),
                                            lambda i: st.lists(i, max_size=3)
                                            | st.dictionaries(st.text(max_size=3), i, max_size=3)),
                      st.booleans())
          | st.text(max_size=40)
          | st.binary(max_size=60).map(lambda b: base64.b64encode(b).decode()))


def test_release_record_decoding() -> None:
    from runner.release import codec

    @SETTINGS
    @given(stored=RECORD)
    def one(stored: str) -> None:
        check("release record", lambda: codec.decode(stored, key="sh.helm.release.v1.r.v3"),
              (codec.RecordDecodeError,))

    fuzz(one)


def test_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """Examples run per target (pytest -s shows them)."""
    with capsys.disabled():
        print(f"\nfuzz examples ({SECONDS:g} s a target): {dict(COUNTS)}, total {sum(COUNTS.values())}")


# -- release specs ------------------------------------------------------------------------

SPEC_SAMPLES = [
    "releases:\n- name: a\n  chart: ./a\n  needs: [b]\n  values: [{x: 1}, v.yaml]\n"
    "- name: b\n  chart: repo/b\n  version: 1.10\n  set: [{name: k, value: '${sha}'}]\n",
    "repositories:\n- {name: repo, url: 'https://e.x'}\nhelmDefaults: {wait: true, timeout: 600}\n"
    "defaults: {applyMethod: ssa, historyDepth: 2}\nenvironments:\n  prod:\n    releases:\n"
    "      a: {installed: false}\nreleases: []\n",
]


def test_spec_reader() -> None:
    """Any text as a spec: a usable spec or a SpecError listing FILE:LINE problems."""
    from runner.spec.context import RunContext
    from runner.spec.errors import SpecError
    from runner.spec.load import parse_spec

    context = RunContext("default", None, {"sha": lambda: "abc"}, {})
    texts = (mutated(SPEC_SAMPLES, YAML_ALPHABET + "$}{releases") | st.text(YAML_ALPHABET, max_size=80)
             | _yaml_snippets().map(lambda t: "releases:\n- " + t.replace("\n", "\n  ")))

    @SETTINGS
    @given(text=texts)
    def one(text: str) -> None:
        check("spec", lambda: parse_spec(text, "deploy-runner.yaml", "/r", context=context),
              (SpecError, RunnerError))

    fuzz(one)
