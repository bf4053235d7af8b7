"""runner/funcs/index.py and the lazy registry: every name known up front,
each family module imported only when a template calls one of its functions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from runner.engine import RenderError, render_chart
from runner.funcs.index import FUNCTIONS_BY_MODULE
from runner.funcs.registry import gofunc

REPO = Path(__file__).resolve().parents[3]


def _run(script: str) -> object:
    """Run `script` in a fresh interpreter (nothing imported yet); its printed JSON."""
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=True)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("module", sorted(FUNCTIONS_BY_MODULE))
def test_importing_a_module_alone_registers_every_name_the_index_gives_it(module: str) -> None:
    loaded = _run(
        "import json, runner.funcs.registry as r\n"
        f"import runner.funcs.{module}\n"
        f"print(json.dumps(sorted(n for n, e in r.registered().items()"
        f" if e.module == {module!r} and e.loaded)))\n"
    )
    assert loaded == sorted(FUNCTIONS_BY_MODULE[module])


def test_index_names_each_function_once() -> None:
    names = [name for names in FUNCTIONS_BY_MODULE.values() for name in names]
    assert sorted(names) == sorted(set(names))


def test_a_name_missing_from_the_index_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="'noSuchFunction' is missing from runner/funcs/index.py"):
        gofunc("noSuchFunction")


_RENDER = """
import json, sys
from runner.funcs import function_map
from runner.template import Template

def families():
    return sorted(m.rsplit(".", 1)[1] for m in sys.modules
                  if m.startswith("runner.funcs.") and m.rsplit(".", 1)[1] in FAMILIES)

from runner.funcs.index import FUNCTIONS_BY_MODULE as FAMILIES
before = families()
text = '{{ semverCompare ">=1.2" "1.3.0" }} {{ if false }}{{ sha256sum "x" }}{{ end }}'
out = Template("gotpl", funcs=function_map()).parse("t", text).execute("t", None)
print(json.dumps({"before": before, "out": out, "after": families()}))
"""


def test_a_call_imports_its_family_on_first_use_and_only_that_family() -> None:
    result = _run(_RENDER)
    # sha256sum parses (crypto is known by name) but is never called, so never imported.
    assert result == {"before": [], "out": "true ", "after": ["semver"]}


def test_an_unknown_function_is_still_helms_parse_error(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("a: {{ upper \"x\" }}\nb: {{ nosuch 1 }}\n")
    with pytest.raises(RenderError) as err:
        render_chart(str(chart))
    assert str(err.value) == 'parse error at (c/templates/cm.yaml:2): function "nosuch" not defined'
