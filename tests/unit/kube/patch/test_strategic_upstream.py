"""CreateThreeWayMergePatch cases ported from Kubernetes' own tests:
k8s.io/apimachinery pkg/util/strategicpatch/patch_test.go
(createStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases;
descriptions kept). Each gives original (last applied), modified (new
config), current (live) and the threeWay patch apimachinery produces; the
schema is that test file's MergeItem type (fake_schema.py).
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from runner.kube.patch.strategic import create_three_way_merge_patch
from tests.unit.kube.patch.fake_schema import MERGE_ITEM

CASES = """
- description: nil original
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
- description: nil patch
  original: {name: 1}
  modified: {name: 1}
  current: {name: 1}
  threeWay: {}
- description: add field to map
  original: {name: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
- description: add field to map with conflict
  original: {name: 1}
  modified: {name: 1, value: 1}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1}
- description: add field and delete field from map
  original: {name: 1}
  modified: {value: 1}
  current: {name: 1, other: a}
  threeWay: {name: null, value: 1}
- description: add field and delete field from map with conflict
  original: {name: 1}
  modified: {value: 1}
  current: {name: a, other: a}
  threeWay: {name: null, value: 1}
- description: delete field from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: 1, key2: 1, other: a}}
  threeWay: {simpleMap: {key2: null}}
- description: delete field from nested map with conflict
  original: {simpleMap: {key1: 1, key2: 1}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: a, key2: 1, other: a}}
  threeWay: {simpleMap: {key1: 1, key2: null}}
- description: delete all fields from map
  original: {name: 1, value: 1}
  modified: {}
  current: {name: 1, value: 1, other: a}
  threeWay: {name: null, value: null}
- description: add field and delete all fields from map with conflict
  original: {name: 1, value: 1}
  modified: {other: a}
  current: {name: 1, value: 1, other: b}
  threeWay: {name: null, value: null, other: a}
- description: replace list of scalars with conflict
  original: {nonMergingIntList: [1, 2]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 4]}
  threeWay: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
- description: delete all maps from empty merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
- description: merge empty merging lists
  original: {mergingList: []}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {}
- description: defined null values should propagate overwrite current fields (with conflict)
  original: {name: 2}
  modified: {name: 1, value: 1, other: null}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1, other: null}
- description: defined null values should propagate removing original fields
  original: {name: original-name, value: original-value}
  modified: {name: modified-name, value: null}
  current: {name: original-name, value: original-value, other: current-other}
  threeWay: {name: modified-name, value: null}
- description: nil patch with retainKeys map
  original: {name: a, retainKeysMap: {name: foo}}
  modified: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, value: b, retainKeysMap: {name: foo}}
  threeWay: {}
- description: retainKeys map with no change should not be present
  original: {name: a, retainKeysMap: {name: foo}}
  modified: {name: a, value: b, retainKeysMap: {name: foo}}
  current: {name: a, other: c, retainKeysMap: {name: foo}}
  threeWay: {value: b}
- description: delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
- description: delete all duplicate items in lists of scalars
  original: {mergingIntList: [1, 2, 3, 3]}
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
- description: add and delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  modified: {mergingIntList: [1, 2, 4]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3]}
- description: merge lists of maps
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
- description: merge lists of maps with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]
- description: add field to map in merging list
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
- description: add field to map in merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
- description: add duplicate field to map in merging list
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay: {}
- description: add an item that already exists in current object in merging list
  original: {mergingList: [{name: 1, value: a}, {name: 2}]}
  modified: {mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
  threeWay: {}
- description: add duplicate field to map in merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 3, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2, value: 2}]
- description: replace map field value in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1, value: a}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 3, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
- description: delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
- description: delete missing map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 3, other: a}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 2}, {name: 1, $patch: delete}]
- description: add map and delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
- description: add map and delete map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]
- description: delete field from map in merging list
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
- description: delete missing field from map in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}, {name: 2, value: 2}]
- description: replace non merging list nested in merging list with deletion conflict
  original: {mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  modified: {mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]}
  current:
    mergingList: [{name: 1, other: a, nonMergingList: [{name: 2, value: 2}]}, {name: 2, other: b}]
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
- description: add field to map in merging list nested in merging list
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  modified:
    mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]
  current:
    mergingList:
    - {name: 1, other: a, mergingList: [{name: 1}, {name: 2, value: 2}]}
    - {name: 2, other: b}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
    - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
      name: 1
      mergingList: [{name: 1, value: 1}]
- description: add field to map in merging list nested in merging list with value conflict
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  modified:
    mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]
  current:
    mergingList:
    - name: 1
      other: a
      mergingList: [{name: 1, value: a, other: c}, {name: 2, value: b, other: d}]
    - {name: 2, other: b}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
    - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
      name: 1
      mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
- description: merge lists of maps by pointer with conflict
  original: {mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  modified:
    mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]
  current:
    mergeItemPtr:
    - name: 1
      other: a
      mergeItemPtr: [{name: 1, value: a}, {name: 2, value: 2, other: b}]
    - {name: 2, other: b}
  threeWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr:
    - $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
      name: 1
      mergeItemPtr: [{name: 1, value: 1}]
- description: replace RawExtension field
  original:
    name: my-object
    mergingList: [{name: 1}, {name: 2}, {name: 3}]
    replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}
  current:
    name: my-object
    value: some-value
    other: current-other
    mergingList: [{name: 1}, {name: 2}, {name: 3}]
    replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}
  modified:
    name: my-object
    value: some-value
    other: current-other
    mergingList: [{name: 1}, {name: 2}, {name: 3}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
  threeWay:
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
- description: retainKeys list of maps clears a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]
- description: retainKeys map changes a field in a nested map with conflict
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: old, key2: b}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: modified, key2: b}}}
  current: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: new, key2: b, key3: c}}}
  threeWay:
    retainKeysMap:
      $retainKeys: [name, simpleMap, value]
      simpleMap: {key1: modified}
"""


def _cases() -> list[dict[str, Any]]:
    return yaml.safe_load(CASES)


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["description"])
def test_three_way_patch_matches_apimachinery(case: dict[str, Any]) -> None:
    patch = create_three_way_merge_patch(case.get("original"), case["modified"],
                                         case["current"], MERGE_ITEM)
    assert patch == case["threeWay"]
