"""The apply-method rules a record carries (runner.release.applymethod)."""

import pytest

from runner.errors import UsageError
from runner.release.applymethod import csa_force_explanation, method_for, resolve_server_side


def test_server_side_auto_follows_the_record():
    assert resolve_server_side("auto", "ssa") is True
    assert resolve_server_side("auto", "csa") is False
    assert resolve_server_side("auto", "") is False  # a Helm 3 record
    assert resolve_server_side("true", "csa") is True
    assert resolve_server_side("false", "ssa") is False
    with pytest.raises(UsageError, match="invalid/unknown release server-side apply method: maybe"):
        resolve_server_side("maybe", "ssa")


def test_a_new_release_defaults_to_server_side_apply():
    assert resolve_server_side("auto") is True
    assert (method_for(True), method_for(False)) == ("ssa", "csa")


def test_the_force_conflicts_explanation_names_the_method_and_the_way_out():
    text = csa_force_explanation("", "latest record's")
    assert "the latest record's apply method is unset (a Helm 3 record)" in text
    assert "--server-side=true" in text
    assert "apply method is csa;" in csa_force_explanation("csa", "target revision's")
