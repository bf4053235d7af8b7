"""runner.records.Record: what the chart model and manifests get instead of @dataclass."""

from __future__ import annotations

import pytest

from runner.chart.model import Dependency, Metadata
from runner.manifest import Hook


def test_equality_and_repr_over_the_fields() -> None:
    assert Dependency(name="a", version="1") == Dependency(name="a", version="1")
    assert Dependency(name="a") != Dependency(name="b")
    assert Dependency(name="a") != Metadata(name="a")
    assert repr(Dependency(name="a")).startswith("Dependency(name='a', version=''")


def test_fields_left_out_of_equality_are_not_compared() -> None:
    assert Hook("h", "Job", "p", "m", positions=object()) == Hook("h", "Job", "p", "m", positions=None)


def test_replace_copies_with_changes_and_refuses_unknown_fields() -> None:
    dep = Dependency(name="a", tags=["x"])
    copy = dep.replace(version="2")
    assert (copy.name, copy.version, copy.tags) == ("a", "2", ["x"]) and dep.version == ""
    with pytest.raises(TypeError, match="no field 'nope'"):
        dep.replace(nope=1)


def test_records_are_unhashable_as_mutable_dataclasses_are() -> None:
    with pytest.raises(TypeError):
        hash(Metadata())
