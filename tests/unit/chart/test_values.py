"""Coalescing, dependencies and the warnings Helm logs, compared with Helm 4.1.4.

Each case is a scratch chart with subcharts; `.Values | toJson` of the top
chart and the set of stderr log lines must equal Helm's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.chart.errors import DependencyError, ValuesError
from runner.chart.loader import load_chart
from runner.chart.prepare import prepare_render_values
from runner.chart.uservalues import merge_user_values
from runner.chart.values import Warnings, coalesce_tables, path_value
from runner.encoding.gojson import marshal
from tests.corpus import corpus_chart
from tests.unit.chart._helm import helm_template, write_chart

DUMP = "{{ .Values | toJson }}"
SUB_DUMP = "sub: {{ .Values | toJson }}"


def _chart_yaml(name: str, deps: str = "") -> str:
    return f"apiVersion: v2\nname: {name}\nversion: 1.0.0\n" + (
        f"dependencies:\n{deps}" if deps else ""
    )


def _compare(chart_dir: Path, *args: str) -> None:
    helm = helm_template(chart_dir, *args)
    assert helm.returncode == 0, helm.stderr
    files, sets = [], {}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        sets.setdefault(flag.removeprefix("--"), []).append(value)
    prepared = prepare_render_values(load_chart(chart_dir), merge_user_values(files, sets))
    assert marshal(prepared.values) == helm.document("templates/dump.yaml")
    assert sorted(prepared.warning_lines()) == helm.log_lines


def test_subchart_defaults_globals_and_parent_overrides(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: sub\n  version: 1.0.0\n  repository: ''\n"),
            "values.yaml": "global: {g: 1, t: {a: 1}}\nsub: {x: parent, t: {a: 1}, u: 5, nn: null}\nn: 1\n",
            "templates/dump.yaml": DUMP,
            "charts/sub/Chart.yaml": _chart_yaml("sub"),
            "charts/sub/values.yaml": "x: child\nt: 2\nu: {a: 1}\nnn: 7\nglobal: {g: 2, h: 3, t: {b: 2}}\nk: {deep: null, keep: 1}\n",
            "charts/sub/templates/s.yaml": SUB_DUMP,
        },
    )
    _compare(chart, "--set", "n.x=1", "--set", "sub.u.b=2")


def test_user_null_deletes_a_default_key(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: sub\n  version: 1.0.0\n  repository: ''\n"),
            "values.yaml": "a: 1\nm: {x: 1, y: 2}\nkeepnull: null\n",
            "templates/dump.yaml": DUMP,
            "charts/sub/Chart.yaml": _chart_yaml("sub"),
            "charts/sub/values.yaml": "s: 1\nt: {u: 1, v: 2}\n",
        },
    )
    _compare(chart, "--set", "a=null,m.x=null,sub.t.u=null,sub.s=null")


def test_conditions_tags_and_non_bool_warnings(tmp_path: Path) -> None:
    deps = (
        "- name: one\n  version: '*'\n  repository: ''\n  condition: one.on,other\n  tags: [a, b]\n"
        "- name: two\n  version: '*'\n  repository: ''\n  condition: two.enabled\n"
        "- name: three\n  version: '*'\n  repository: ''\n  tags: [c]\n"
    )
    files = {
        "Chart.yaml": _chart_yaml("top", deps),
        "values.yaml": "one: {on: 'yes'}\nother: 3\ntags: {a: x, b: false, c: true}\ntwo: {enabled: false}\n",
        "templates/dump.yaml": DUMP,
    }
    for name in ("one", "two", "three"):
        files[f"charts/{name}/Chart.yaml"] = _chart_yaml(name)
        files[f"charts/{name}/values.yaml"] = f"mine: {name}\n"
    chart = write_chart(tmp_path / "top", files)
    _compare(chart)
    _compare(chart, "--set", "two.enabled=true,tags.c=false")


def test_alias_copies_and_import_values(tmp_path: Path) -> None:
    deps = (
        "- name: lib\n  alias: first\n  version: 1.0.0\n  repository: ''\n"
        "  import-values: [data, {child: nested.table, parent: imported.here}, missing]\n"
        "- name: lib\n  alias: second\n  version: 1.0.0\n  repository: ''\n"
        "  import-values: [{child: exports.data, parent: shared}, {child: nope, parent: x}]\n"
    )
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", deps),
            "values.yaml": "shared: {own: 1}\nfirst: {override: yes}\n",
            "templates/dump.yaml": DUMP,
            "charts/lib/Chart.yaml": _chart_yaml("lib"),
            "charts/lib/values.yaml": (
                "exports: {data: {exported: 1, also: 2}}\nnested: {table: {t: 1}}\noverride: no\n"
            ),
            "charts/lib/templates/s.yaml": SUB_DUMP,
        },
    )
    _compare(chart)


@pytest.mark.parametrize(
    "name",
    [
        "helmtest-subchart",
        "helmtest-import-from-aliased",
        "helmtest-import-values-enabled",
        "helmtest-issue-9027",
    ],
)
def test_helm_test_charts_values_match_helm(tmp_path: Path, name: str) -> None:
    import shutil

    chart = tmp_path / name
    shutil.copytree(corpus_chart(name), chart)
    (chart / "templates" / "dump.yaml").write_text(DUMP)
    _compare(chart)


def test_missing_declared_subchart_fails_like_helm(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: x\n  version: 1.0.0\n  repository: ''\n"),
            "templates/dump.yaml": DUMP,
        },
    )
    helm = helm_template(chart)
    with pytest.raises(DependencyError) as caught:
        prepare_render_values(load_chart(chart), {})
    assert str(caught.value) == helm.error


def test_scalar_where_a_subchart_table_belongs_is_a_type_mismatch(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: sub\n  version: 1.0.0\n  repository: ''\n"),
            "templates/dump.yaml": DUMP,
            "charts/sub/Chart.yaml": _chart_yaml("sub"),
        },
    )
    helm = helm_template(chart, "--set", "sub=1")
    with pytest.raises(ValuesError) as caught:
        prepare_render_values(load_chart(chart), merge_user_values([], {"set": ["sub=1"]}))
    assert str(caught.value) == helm.error


def test_coalesce_tables_dst_wins_and_nulls_delete() -> None:
    # CoalesceTables (coalesce_test.go): dst authoritative, a dst null removes src's key.
    dst = {"a": 1, "n": None, "m": {"x": 1}}
    src = {"a": 2, "n": 3, "m": {"x": 2, "y": 3}, "new": 4}
    assert coalesce_tables(dst, src, Warnings()) == {"a": 1, "m": {"x": 1, "y": 3}, "new": 4}


def test_path_value_finds_only_non_table_values() -> None:
    values = {"a": {"b": {"c": True}, "t": {}}, "top": 1}
    assert path_value(values, "a.b.c") is True
    assert path_value(values, "top") == 1
    with pytest.raises(LookupError):
        path_value(values, "a.t")
    with pytest.raises(LookupError):
        path_value(values, "a.missing.c")


def test_each_subchart_sees_its_own_table_as_helm_renders_it(tmp_path: Path) -> None:
    from runner.chart.values import scoped_values

    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: sub\n  version: 1.0.0\n  repository: ''\n"),
            "values.yaml": "global: {g: 1}\nsub: {x: parent}\n",
            "templates/dump.yaml": DUMP,
            "charts/sub/Chart.yaml": _chart_yaml(
                "sub", "- name: leaf\n  version: 1.0.0\n  repository: ''\n"
            ),
            "charts/sub/values.yaml": "x: child\ny: 2\n",
            "charts/sub/templates/s.yaml": "{{ .Values | toJson }}",
            "charts/sub/charts/leaf/Chart.yaml": _chart_yaml("leaf"),
            "charts/sub/charts/leaf/templates/l.yaml": "{{ .Values | toJson }}",
        },
    )
    helm = helm_template(chart)
    loaded = load_chart(chart)
    scopes = scoped_values(loaded, prepare_render_values(loaded, {}).values)
    assert marshal(scopes["top/charts/sub"]) == helm.document("charts/sub/templates/s.yaml")
    assert marshal(scopes["top/charts/sub/charts/leaf"]) == helm.document(
        "charts/leaf/templates/l.yaml"
    )


def test_global_conflicts_and_nested_subcharts(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: mid\n  version: 1.0.0\n  repository: ''\n"),
            "values.yaml": "global: {m: {a: 1}, s: top, t: {x: 1}}\nown: null\nmid: {global: {m: 2}}\n",
            "templates/dump.yaml": DUMP,
            "charts/mid/Chart.yaml": _chart_yaml(
                "mid", "- name: leaf\n  version: 1.0.0\n  repository: ''\n"
            ),
            "charts/mid/values.yaml": "global: {s: mid, t: 5, only: mid}\nleaf: {global: {s: leafp}}\n",
            "charts/mid/charts/leaf/Chart.yaml": _chart_yaml("leaf"),
            "charts/mid/charts/leaf/values.yaml": "global: {s: leaf, deep: {k: v}}\nk: null\nz: {n: null}\n",
        },
    )
    _compare(chart)
    _compare(chart, "--set", "global.s=cli,mid.leaf.k=set")


def test_global_that_is_not_a_table_is_skipped_with_helms_warning(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": _chart_yaml("top", "- name: sub\n  version: 1.0.0\n  repository: ''\n"),
            "values.yaml": "global: 3\n",
            "templates/dump.yaml": DUMP,
            "charts/sub/Chart.yaml": _chart_yaml("sub"),
            "charts/sub/values.yaml": "global: {a: 1}\n",
        },
    )
    _compare(chart)


def test_empty_dependencies_list_still_runs_dependency_processing(tmp_path: Path) -> None:
    # Go's nil-vs-empty slice: `dependencies: []` runs ProcessDependencies (and its
    # coalesce warnings) for an undeclared subchart; an absent key does not.
    files = {
        "values.yaml": "sub: {t: {a: 1}}\n",
        "templates/dump.yaml": DUMP,
        "charts/sub/Chart.yaml": _chart_yaml("sub"),
        "charts/sub/values.yaml": "t: 2\n",
    }
    declared = write_chart(
        tmp_path / "top", {"Chart.yaml": _chart_yaml("top") + "dependencies: []\n", **files}
    )
    absent = write_chart(tmp_path / "other", {"Chart.yaml": _chart_yaml("other"), **files})
    _compare(declared)
    _compare(absent)
