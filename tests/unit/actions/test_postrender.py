"""--post-renderer: plugin lookup, command preparation, and kyaml's annotate/split round trip."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from runner.encoding import kyaml
from runner.errors import RunnerError
from runner.plugins import find_plugin
from runner.postrender import _platform_command, go_expand, merge_files, split_files

V1 = "apiVersion: v1\nname: {name}\ntype: {kind}\nruntime: subprocess\nversion: 1.2.3\n"


def _unexpected(line: str) -> None:
    raise AssertionError(f"no warning expected: {line}")


def _plugin(root: Path, directory: str, name: str, kind: str) -> None:
    (root / directory).mkdir(parents=True)
    (root / directory / "plugin.yaml").write_text(V1.format(name=name, kind=kind))


def test_find_plugin_matches_name_and_type(tmp_path: Path) -> None:
    _plugin(tmp_path, "pr", "pr", "postrenderer/v1")
    _plugin(tmp_path, "cli", "cli", "cli/v1")
    assert find_plugin("pr", "postrenderer/v1", [tmp_path], on_warning=_unexpected).directory == tmp_path / "pr"
    with pytest.raises(RunnerError, match=r"plugin: \{Name:cli Type:postrenderer/v1\} not found"):
        find_plugin("cli", "postrenderer/v1", [tmp_path, tmp_path / "missing"], on_warning=_unexpected)


def test_two_plugins_of_one_name_in_one_directory_are_an_error(tmp_path: Path) -> None:
    _plugin(tmp_path, "a", "same", "postrenderer/v1")
    _plugin(tmp_path, "b", "same", "cli/v1")
    with pytest.raises(RunnerError, match='two plugins claim the name "same"'):
        find_plugin("same", "postrenderer/v1", [tmp_path], on_warning=_unexpected)


def test_a_broken_plugin_is_skipped_with_helms_warning(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "plugin.yaml").write_text("apiVersion: v1\nname: bad\nbogus: 1\n")
    _plugin(tmp_path, "pr", "pr", "postrenderer/v1")
    told: list[str] = []
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert find_plugin("pr", "postrenderer/v1", [tmp_path], on_warning=told.append).name == "pr"
    assert err.getvalue() == ""  # told, not printed: the CLI prints
    [line] = told
    assert line.startswith('level=WARN msg="failed to load plugin (ignoring)" plugin_yaml=')
    assert "field bogus not found in type plugin.MetadataV1" in line


@pytest.mark.parametrize(("text", "expanded"), [
    ("$A/x", "1/x"),
    ("${A}x", "1x"),
    ("$Ax", ""),  # the name runs on over letters and digits
    ("a$", "a$"),  # a trailing dollar stays
    ("$-", "dash"),  # shell special names are one character
    ("${}", ""),  # bad syntax is eaten
    ("${A", "A"),  # an unclosed brace eats the "${" only
    ("$%", "$%"),  # no name follows: the dollar stays
    ("$MISSING.", "."),
])
def test_go_expand(text: str, expanded: str) -> None:
    env = {"A": "1", "-": "dash"}
    assert go_expand(text, lambda name: env.get(name, "")) == expanded


def test_platform_command_prefers_exact_then_os_then_any(monkeypatch: pytest.MonkeyPatch) -> None:
    import platform

    monkeypatch.setattr(platform, "system", lambda: "Linux")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    anyone = {"command": "any a"}
    linux = {"os": "linux", "command": "linux"}
    exact = {"os": "linux", "arch": "amd64", "command": "exact", "args": ["x"]}
    other_arch = {"os": "linux", "arch": "arm64", "command": "arm"}
    assert _platform_command([anyone, linux, exact]) == (["exact"], ["x"])
    assert _platform_command([anyone, other_arch, linux]) == (["linux"], [])
    assert _platform_command([anyone, {"os": "windows", "command": "win"}]) == (["any", "a"], [])
    assert _platform_command([{"arch": "amd64", "command": "arch only"}]) == ([], [])


def test_merge_annotates_each_document_and_skips_partials_and_empty_files() -> None:
    merged = merge_files({
        "c/templates/b.yaml": "kind: B\nmetadata:\n  name: b\n",
        "c/templates/a.yaml": "kind: A\n---\nkind: A2\nmetadata:\n  annotations: {}\n  name: a2\n",
        "c/templates/_helpers.tpl": "kind: Partial\n",
        "c/templates/empty.yaml": "\n  \n",
    })
    assert merged == (
        "kind: A\nmetadata:\n  annotations:\n"
        "    postrenderer.helm.sh/postrender-filename: 'c/templates/a.yaml'\n"
        "---\nkind: A2\nmetadata:\n  name: a2\n  annotations:\n"
        "    postrenderer.helm.sh/postrender-filename: 'c/templates/a.yaml'\n"
        "---\nkind: B\nmetadata:\n  name: b\n  annotations:\n"
        "    postrenderer.helm.sh/postrender-filename: 'c/templates/b.yaml'\n"
    )


def test_split_groups_by_annotation_and_names_the_rest() -> None:
    stream = (
        "kind: A\nmetadata:\n  annotations:\n    postrenderer.helm.sh/postrender-filename: f.yaml\n"
        "---\nkind: New\n"
        "---\nkind: A2\nmetadata:\n  annotations:\n    postrenderer.helm.sh/postrender-filename: f.yaml\n"
        "    keep: 'yes'\n"
    )
    assert split_files(stream) == {
        "f.yaml": "kind: A\n---\nkind: A2\nmetadata:\n  annotations:\n    keep: 'yes'\n",
        "generated-by-postrender-1.yaml": "kind: New\n",
    }


def test_round_trip_rewrites_layout_as_go_yaml_v3() -> None:
    text = ('a:   "x"\nb:\n    - 1\n    -   c: [ 1,2 ]\n        d: {}\ne: |\n  line\nf: >-\n  one\n  two\n'
            "g: 'it''s'\nh:\n")
    (node,) = kyaml.parse_all(text)
    assert kyaml.string_all([node]) == (
        'a: "x"\nb:\n- 1\n- c: [1, 2]\n  d: {}\ne: |\n  line\nf: >-\n  one two\ng: \'it\'\'s\'\nh:\n')


@pytest.mark.parametrize("text", [
    "a: [1, # why\n  2]\n",  # inside a flow collection
    "a:\n  b: 1\n\n  # indented, after a blank line at the end\n",
    "a: |  # on a block scalar's header\n  x\n",
    "a:\n  b: 1\n  # one group\n\n  # another\nc: 2\n",  # go-yaml v3 moves the second group out
    "a: &x 1\n? *x\n: 1\n",  # an alias as a key (written `*x :`)
])
def test_what_the_round_trip_cannot_reproduce_is_refused(text: str) -> None:
    with pytest.raises(kyaml.Unsupported):
        kyaml.string_all(kyaml.parse_all(text))


def test_hash_inside_scalars_is_no_comment() -> None:
    (node,) = kyaml.parse_all('a: "x # y"\nb: |\n  # z\nc: d#e\n')
    assert kyaml.string_all([node]) == 'a: "x # y"\nb: |\n  # z\nc: d#e\n'


def test_template_refuses_to_post_render_yaml_comments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from runner.cli import main

    plugins = tmp_path / "plugins"
    _plugin(plugins, "pr", "pr", "postrenderer/v1")
    chart = tmp_path / "ch"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("kind: ConfigMap\ndata: [1, # a comment\n  2]\n")
    monkeypatch.setenv("HELM_PLUGINS", str(plugins))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["template", "r", str(chart), "--post-renderer", "pr"])
    assert code == 1
    assert "post-rendering ch/templates/cm.yaml: YAML comments in this position are not supported" in err.getvalue()
