"""--post-renderer names a postrenderer/v1 plugin (Helm 4); running one is refused clearly."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from runner.actions.postrender import find_plugin


def _plugin(root: Path, name: str, kind: str) -> None:
    (root / name).mkdir(parents=True)
    (root / name / "plugin.yaml").write_text(
        f'name: "{name}"\nversion: "1.2.3"\ntype: {kind}\napiVersion: v1\nruntime: subprocess\n'
    )


def test_find_plugin_matches_name_and_type(tmp_path: Path) -> None:
    _plugin(tmp_path, "pr", "postrenderer/v1")
    _plugin(tmp_path, "cli", "cli/v1")
    assert find_plugin("pr", [tmp_path]) == tmp_path / "pr"
    assert find_plugin("cli", [tmp_path]) is None
    assert find_plugin("nosuch", [tmp_path, tmp_path / "missing"]) is None


def test_template_with_a_found_plugin_says_it_is_unsupported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from runner.cli import main

    _plugin(tmp_path / "plugins", "pr", "postrenderer/v1")
    chart = tmp_path / "ch"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    monkeypatch.setenv("HELM_PLUGINS", str(tmp_path / "plugins"))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["template", "r", str(chart), "--post-renderer", "pr"])
    assert code == 1
    assert 'post-renderer plugin "pr"' in err.getvalue()
