"""go-yaml v2's limits on hostile YAML, as sigs.k8s.io/yaml (Helm 4.1.4) applies them.

- decode.go counts every node it decodes and the ones reached through an
  alias: past 1000 decodes with over 100 aliased, more than 99% aliased
  fails "yaml: document contains excessive aliasing" (a "billion laughs"
  document fails at once instead of expanding 9^9 strings);
- an alias inside its own anchor's value: "yaml: anchor 'a' value contains itself";
- scannerc.go refuses flow levels or block indentation nested over 10000:
  "yaml: [line N: ]exceeded max depth of 10000";
- encoding/json refuses the converted document nested over 10000 deep.

tests/conformance/test_hostile_input.py compares the same with the helm binary.
"""

from __future__ import annotations

import time

import pytest

from runner.deepstack import run_deep
from runner.encoding import goyaml
from runner.encoding.goyaml import GoYAMLError


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    lines = ['a0: &a0 [' + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def message(text: str) -> str:
    with pytest.raises(GoYAMLError) as info:
        goyaml.load(text)
    return info.value.unmarshal_message


def test_an_alias_bomb_fails_at_once() -> None:
    start = time.monotonic()
    assert message(billion_laughs()) == (
        "error converting YAML to JSON: yaml: document contains excessive aliasing")
    assert time.monotonic() - start < 2


def test_the_bomb_fails_in_every_reader() -> None:
    for read in (goyaml.load, goyaml.load_all, lambda t: goyaml.load_fields(t, ("a0",))):
        with pytest.raises(GoYAMLError, match="excessive aliasing"):
            read(billion_laughs())


def test_a_few_aliases_are_fine() -> None:
    value = goyaml.load(billion_laughs(levels=3, width=3))
    assert value["a2"] == [[["lol"] * 3] * 3] * 3


@pytest.mark.parametrize("text", [
    "a: &a [1, *a]\n",
    "a: &a {b: *a}\n",
    "x:\n  a: &a\n    b: [*a]\n",
    "a: !!seq &a [*a]\n",
])
def test_an_anchor_inside_its_own_value_is_refused(text: str) -> None:
    assert message(text) == "error converting YAML to JSON: yaml: anchor 'a' value contains itself"


def test_a_merge_through_an_alias_needs_a_map() -> None:
    text = "a: &a {x: 1}\ns: &s [*a]\nb:\n  <<: *s\n"
    assert message(text) == (
        "error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value")
    merged = goyaml.load("a: &a {x: 1}\nc: &c {x: 3, z: 1}\nb:\n  <<: [*a, *c]\n")
    assert merged["b"] == {"x": 1.0, "z": 1.0}  # earlier maps win


def test_flow_nesting_over_10000_is_refused_by_the_scanner() -> None:
    depth = 10001
    assert message("x: " + "[" * depth + "]" * depth) == (
        "error converting YAML to JSON: yaml: exceeded max depth of 10000")
    assert message("x: 1\ny: " + "{a: " * depth + "1" + "}" * depth) == (
        "error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000")


def test_block_nesting_over_10000_is_refused_by_the_scanner() -> None:
    assert message("a:\n" + "- " * 10001 + "x\n") == (
        "error converting YAML to JSON: yaml: line 2: exceeded max depth of 10000")


def test_json_refuses_a_document_nested_over_10000_deep() -> None:
    # 10000 flow levels pass the scanner; with the top map the JSON nests 10001 deep.
    assert message("x: " + "[" * 10000 + "]" * 10000) == (
        "error unmarshaling JSON: while decoding JSON: invalid character '[' exceeded max depth")
    assert message("a:\n" + "- " * 10000 + "x\n").endswith("invalid character '[' exceeded max depth")

    def depth_of_9999() -> int:  # on a deep thread, as commands run: the value is deep
        node, depth = goyaml.load("a:\n" + "- " * 9999 + "x\n")["a"], 0
        while isinstance(node, list):
            node, depth = node[0], depth + 1
        return depth

    assert run_deep(depth_of_9999) == 9999


def test_deep_text_far_past_the_limit_fails_fast() -> None:
    start = time.monotonic()
    assert "exceeded max depth of 10000" in message("x: " + "[" * 1_000_000)
    assert time.monotonic() - start < 10
