"""docs/functions.md (Helm 4.1.4's function map) and the registry agree row by row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from runner.funcs import function_map
from runner.template import BUILTINS

ROOT = Path(__file__).resolve().parents[3]
TABLE = ROOT / "docs" / "functions.md"
ROW = re.compile(r"^\| (\S+) \| (\S+) \| (implemented|missing) \| .* \|$")


def _rows() -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[str, str]] = {}
    for line in TABLE.read_text().splitlines():
        match = ROW.match(line)
        if match:
            name, family, status = match.groups()
            assert name not in rows, f"{name} listed twice"
            rows[name] = (family, status)
    return rows


def _engine_bound() -> set[str]:
    """Names runner/engine.py binds per render ("include": GoFunc(...), ...)."""
    source = (ROOT / "runner" / "engine.py").read_text()
    return set(re.findall(r'"(\w+)": GoFunc\(', source))


ROWS = _rows()
REGISTERED = function_map()


def test_table_lists_helm_4_1_4_function_map() -> None:
    # Sprig v3.3.0 (211) - env, expandenv + 11 Helm extras (3 replace Sprig's)
    # + include/tpl/required/lookup + 18 text/template builtins not shadowed.
    assert len(ROWS) == 239
    for name in ("toYaml", "mustToYaml", "toYamlPretty", "fromToml", "include", "printf", "slice"):
        assert name in ROWS
    for name in ("env", "expandenv", "mustFromYaml", "toSeconds"):
        assert name not in ROWS


@pytest.mark.parametrize("name", sorted(ROWS))
def test_row_status_matches_registry(name: str) -> None:
    family, status = ROWS[name]
    if family == "template":
        present = name in BUILTINS
    elif family == "engine":
        present = name in _engine_bound()
    else:
        present = name in REGISTERED
        if present:
            module = REGISTERED[name].impl.__module__
            assert module == f"runner.funcs.{family}", f"{name} is registered by {module}"
    assert present == (status == "implemented"), f"{name}: table says {status}"


def test_every_registered_function_has_a_row() -> None:
    assert sorted(set(REGISTERED) - set(ROWS)) == []


def test_every_builtin_has_a_row() -> None:
    assert sorted(set(BUILTINS) - set(ROWS)) == []
