"""JSON merge patch cases ported from Kubernetes' own tests:
k8s.io/apimachinery pkg/util/jsonmergepatch/patch_test.go
(filterNullTestCaseData for keepOrDeleteNullInObj, createJSONMergePatchTestCaseData
for CreateThreeWayJSONMergePatch; descriptions kept). Those tests pass no
preconditions; Helm's are checked separately below.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from runner.kube.patch.errors import PatchError
from runner.kube.patch.jsonmerge import (
    create_merge_patch,
    create_three_way_json_merge_patch,
    keep_or_delete_null,
)

FILTER_NULL = """
- {description: nil original, originalObj: {}, expectedWithNull: {}, expectedWithoutNull: {}}
- description: simple map
  originalObj: {nilKey: null, nonNilKey: foo}
  expectedWithNull: {nilKey: null}
  expectedWithoutNull: {nonNilKey: foo}
- description: simple map with all nil values
  originalObj: {nilKey1: null, nilKey2: null}
  expectedWithNull: {nilKey1: null, nilKey2: null}
  expectedWithoutNull: {}
- description: nested map
  originalObj: {mapKey: {nilKey: null, nonNilKey: foo}}
  expectedWithNull: {mapKey: {nilKey: null}}
  expectedWithoutNull: {mapKey: {nonNilKey: foo}}
- description: nested map that all subkeys are nil
  originalObj: {mapKey: {nilKey1: null, nilKey2: null}}
  expectedWithNull: {mapKey: {nilKey1: null, nilKey2: null}}
  expectedWithoutNull: {}
- description: explicitly empty map as value
  originalObj: {mapKey: {}}
  expectedWithNull: {}
  expectedWithoutNull: {mapKey: {}}
- description: nested map with non-null value as empty map
  originalObj: {mapKey: {nonNilKey: {}, nilKey: null}}
  expectedWithNull: {mapKey: {nilKey: null}}
  expectedWithoutNull: {mapKey: {nonNilKey: {}}}
- description: list of maps
  originalObj: {listKey: [{k1: v1}, {k2: null}, {k3: v3, k4: null}]}
  expectedWithNull: {}
  expectedWithoutNull: {listKey: [{k1: v1}, {k2: null}, {k3: v3, k4: null}]}
"""

THREE_WAY = """
- description: nil original
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
- description: nil patch
  original: {name: 1}
  modified: {name: 1}
  current: {name: 1}
  threeWay: {}
- description: add field to map with conflict
  original: {name: 1}
  modified: {name: 1, value: 1}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1}
- description: add field and delete field from map with conflict
  original: {name: 1}
  modified: {value: 1}
  current: {name: a, other: a}
  threeWay: {name: null, value: 1}
- description: delete field from nested map with conflict
  original: {simpleMap: {key1: 1, key2: 1}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: a, key2: 1, other: a}}
  threeWay: {simpleMap: {key1: 1, key2: null}}
- description: delete all fields from map with conflict
  original: {name: 1, value: 1}
  modified: {}
  current: {name: 1, value: a, other: a}
  threeWay: {name: null, value: null}
- description: add field and delete all fields from map with conflict
  original: {name: 1, value: 1}
  modified: {other: a}
  current: {name: 1, value: 1, other: b}
  threeWay: {name: null, value: null, other: a}
- description: replace list of scalars with conflict
  original: {intList: [1, 2]}
  modified: {intList: [2, 3]}
  current: {intList: [1, 4]}
  threeWay: {intList: [2, 3]}
- description: patch with different scalar type
  original: {foo: 1}
  modified: {foo: true}
  current: {foo: 1, bar: 2}
  threeWay: {foo: true}
- description: patch from map to scalar
  original: {foo: {baz: 1}}
  modified: {foo: 0}
  current: {foo: {baz: 1}, bar: 2}
  threeWay: {foo: 0}
- description: patch from list to map
  original: {foo: [1, 2]}
  modified: {foo: {baz: 0}}
  current: {foo: [1, 2], bar: 2}
  threeWay: {foo: {baz: 0}}
- description: patch with different nested types
  original: {foo: [{a: true}, 2, false]}
  modified: {foo: [1, false, {b: 1}]}
  current: {foo: [{a: true}, 2, false], bar: 0}
  threeWay: {foo: [1, false, {b: 1}]}
"""


@pytest.mark.parametrize("case", yaml.safe_load(FILTER_NULL), ids=lambda c: c["description"])
def test_keep_or_delete_null_matches_apimachinery(case: dict[str, Any]) -> None:
    assert keep_or_delete_null(case["originalObj"], keep_null=True) == case["expectedWithNull"]
    assert keep_or_delete_null(case["originalObj"], keep_null=False) == case["expectedWithoutNull"]


@pytest.mark.parametrize("case", yaml.safe_load(THREE_WAY), ids=lambda c: c["description"])
def test_three_way_json_merge_patch_matches_apimachinery(case: dict[str, Any]) -> None:
    patch = create_three_way_json_merge_patch(case.get("original"), case["modified"],
                                              case["current"], preconditions=())
    assert patch == case["threeWay"]


def test_helm_preconditions_refuse_a_changed_name() -> None:
    # Helm passes kubectl's preconditions (pkg/kube/client.go createPatch).
    original = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "a"}}
    modified = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "b"}}
    with pytest.raises(PatchError, match="apiVersion, kind or name"):
        create_three_way_json_merge_patch(original, modified, original)


def test_two_way_merge_patch_replaces_lists_and_nulls_dropped_keys() -> None:
    # RFC 7386: objects merge key by key, null removes, arrays are replaced whole.
    original = {"spec": {"size": 1, "tags": ["a", "b"], "color": "red"}}
    modified = {"spec": {"size": 2, "tags": ["a"]}}
    assert create_merge_patch(original, modified) == {
        "spec": {"size": 2, "tags": ["a"], "color": None}}


def test_two_way_merge_patch_ignores_the_live_object_and_number_spelling() -> None:
    # encoding/json reads every number as float64: 1 and 1.0 are the same value.
    assert create_merge_patch({"spec": {"size": 1}}, {"spec": {"size": 1.0}}) == {}
