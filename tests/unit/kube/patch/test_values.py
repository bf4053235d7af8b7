"""Go's view of JSON values, which decides pairing and order in patches."""

from __future__ import annotations

from runner.kube.patch.values import dedupe_scalars, deep_equal, go_sort, go_str, normalize


def test_integral_floats_become_ints_as_after_a_go_json_round_trip() -> None:
    assert normalize({"a": [1.0, 1.5, 2**70 * 1.0]}) == {"a": [1, 1.5, 2**70 * 1.0]}
    assert type(normalize(3.0)) is int


def test_deep_equal_tells_types_apart() -> None:
    assert deep_equal({"a": [1, "x"]}, {"a": [1, "x"]})
    assert not deep_equal(1, 1.0) and not deep_equal(True, 1) and not deep_equal([1], [1, 1])


def test_go_str_is_percent_v() -> None:
    assert [go_str(v) for v in ("s", 1, 1.5, True, None, 1e21)] == \
        ["s", "1", "1.5", "true", "<nil>", "1e+21"]


def test_equal_keys_end_reversed_as_go_insertion_sort_leaves_them() -> None:
    items = [{"k": "b", "n": 1}, {"k": "a", "n": 2}, {"k": "b", "n": 3}]
    assert [i["n"] for i in go_sort(items, lambda i: i["k"])] == [2, 3, 1]


def test_dedupe_moves_the_last_element_into_a_duplicates_place() -> None:
    # apimachinery's deduplicateScalars, not an order-keeping dedupe.
    assert dedupe_scalars(["a", "a", "b", "c"]) == ["a", "c", "b"]
    assert dedupe_scalars([1, 1.0, True]) == [1, 1.0, True]
