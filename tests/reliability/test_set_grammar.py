"""Odd --set grammar against `helm template`: escapes, brackets and indexes, empty keys,
dots, commas, unicode, types, and what overrides what; each input through --set,
--set-string and --set-literal (and --set-json where it parses JSON). The same output
(the values as JSON), error text and exit code. Helm runs every case in the test run."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conformance.cli_helpers import helm_in, ours_in
from tests.reliability.campaign import FIGURES

pytestmark = pytest.mark.conformance

INPUTS = (
    # escapes
    r"a=b\,c", r"a=b\\,c", r"a\.b=c", r"a\=b=c", r"a=\=", "a=b\\", r"a=\[0\]", r"a\[0\]=x",
    r"a=\u00e9", r"a=\n", r"a.b\.c.d=1",
    # brackets and indexes
    "a[0]=x", "a[1]=x", "a[0].b=c", "a[0][1]=x", "a[-1]=x", "a[x]=1", "a[0]b=1", "a[ 0]=1",
    "a[00]=1", "a[+1]=1", "a[1e2]=1", "a[65536]=x", "a[65537]=x", "a[99999999999999999999]=x", "a[\xff]=1", "a[0]=x,a[2]=y", "a[0]=1,a=2",
    "a=2,a[0]=1", "[0]=x", "a[=1", "a]=1", "a[]=1", "a[0]=", "list[1]=z", "list[0].k=v",
    # empty keys, dots
    "=x", "=", ".a=1", "a.=1", "a..b=1", "a=", "a", "", " ", "a.b.c.d.e.f=1", "a.b=1,a.b.c=2",
    "a.b.c=2,a.b=1", "...=1",
    # commas
    ",", "a=1,", ",a=1", "a=1,,b=2", "a=1,b", "a={1,2}", "a={x}", "a=x,y=z", "a=x,y",
    # unicode and odd bytes
    "ünï=cödé", "a=😀", "日本.語=値", "a=\u200b", "\u00a0=1", "a=\t", "a\tb=1",
    # types and nulls
    "a=true", "a=True", "a=null", "a=nil", "a=0x10", "a=1e3", "a=007", "a=-1", "a=+1", "a=1.0",
    "a=9223372036854775808", "a=-0", "a=\"q\"", "a='q'", "a.b=null", "defaults.k=null",
    "defaults=null", "defaults.list[0]=z",
)
JSON_INPUTS = (
    "a=1", "a={}", "a=[1,{\"b\":null}]", "a=1e400", "a=\"x", "a=NaN", "a[0]={\"b\":1}", "a.b=[]",
    "=1", "a=", "{\"a\":1}", "[1]", "a=null", "defaults=null",
)
FLAGS = ("--set", "--set-string", "--set-literal")
CASES = [(flag, value) for value in INPUTS for flag in FLAGS] + [("--set-json", v) for v in JSON_INPUTS]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("set-grammar")
    (root / "ch" / "templates").mkdir(parents=True)
    (root / "ch" / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    (root / "ch" / "values.yaml").write_text("defaults:\n  k: v\n  list: [x, y]\nlist: [p, q]\n")
    (root / "ch" / "templates" / "cm.yaml").write_text("values: {{ .Values | toJson }}\n")
    return root


@pytest.mark.parametrize(("flag", "value"), CASES, ids=[f"{f} {v!r}" for f, v in CASES])
def test_set_reads_as_helm_reads_it(flag: str, value: str, workdir: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["template", "r", "ch", flag, value]
    FIGURES.add("--set grammar", f"{flag} inputs compared")
    assert ours_in(workdir, argv, monkeypatch) == helm_in(workdir, argv)
