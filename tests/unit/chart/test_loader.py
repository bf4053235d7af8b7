"""Loading charts: every corpus chart, .helmignore, Chart.yaml checks, `.Chart` as Helm shows it.

Expectations come from running Helm 4.1.4 on the same scratch chart.
"""

from __future__ import annotations

import io
import re
import tarfile
from pathlib import Path

import pytest

from runner.chart.errors import ChartError
from runner.chart.loader import load_chart
from runner.encoding.gojson import marshal
from tests.corpus import CHARTS_DIR, chart_names
from tests.unit.chart._helm import helm_template, write_chart

CORPUS = CHARTS_DIR
CORPUS_CHARTS = chart_names()


@pytest.mark.parametrize("name", CORPUS_CHARTS)
def test_every_corpus_chart_loads_with_its_subcharts(name: str) -> None:
    chart = load_chart(CORPUS / name)
    assert chart.name()
    assert chart.templates or chart.dependencies
    for sub in chart.dependencies:
        assert sub.parent is chart
        assert sub.chart_full_path() == f"{chart.name()}/charts/{sub.name()}"


FILES_TEMPLATE = 'files:\n{{ range $p, $_ := .Files.Glob "**" }}- {{ $p }}\n{{ end }}'


def _helm_file_names(document: str) -> list[str]:
    return sorted(line[2:] for line in document.splitlines() if line.startswith("- "))


def _our_file_names(chart_dir: Path) -> list[str]:
    return sorted(f.name for f in load_chart(chart_dir).files)


def test_helmignore_rules_match_helms_file_list(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "ign",
        {
            ".helmignore": "# comment\n*.bak\n/secret.txt\ndocs/\nnested/*.tmp\n",
            "templates/files.yaml": FILES_TEMPLATE,
            "templates/.hidden.yaml": "hidden: true",
            "a.bak": "x",
            "keep.bak": "x",
            "secret.txt": "x",
            "sub/secret.txt": "x",
            "docs/readme.md": "x",
            "nested/x.tmp": "x",
            "nested/y.txt": "x",
            "notes.txt": "x",
        },
    )
    helm = helm_template(chart, "--show-only", "templates/files.yaml")
    assert helm.returncode == 0, helm.stderr
    assert _our_file_names(chart) == _helm_file_names(helm.document("templates/files.yaml"))
    assert [t.name for t in load_chart(chart).templates] == ["templates/files.yaml"]


def test_helmignore_negation_ignores_every_other_path_as_helm_does(tmp_path: Path) -> None:
    # pkg/ignore: a `!pattern` rule returns "ignored" for every path it does not match,
    # Chart.yaml included.
    chart = write_chart(tmp_path / "neg", {".helmignore": "!keep.txt\n", "keep.txt": "x"})
    helm = helm_template(chart)
    with pytest.raises(ChartError) as caught:
        load_chart(chart)
    assert str(caught.value) == helm.error == "Chart.yaml file is missing"


@pytest.mark.parametrize("rule", ["[", "a/**/b", "x\\"])
def test_bad_helmignore_pattern_fails_like_helm(tmp_path: Path, rule: str) -> None:
    chart = write_chart(tmp_path / "bad", {".helmignore": f"ok\n{rule}\n"})
    helm = helm_template(chart)
    with pytest.raises(ChartError) as caught:
        load_chart(chart)
    assert str(caught.value) == helm.error


def test_helmignore_default_hides_dotfiles_in_templates_only(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "dots",
        {"templates/files.yaml": FILES_TEMPLATE, "templates/.x.yaml": "a: 1", ".other": "x"},
    )
    helm = helm_template(chart, "--show-only", "templates/files.yaml")
    assert _our_file_names(chart) == _helm_file_names(helm.document("templates/files.yaml"))
    assert ".other" in _our_file_names(chart)


@pytest.mark.parametrize(
    "chart_yaml",
    [
        "apiVersion: v3\nname: e\nversion: 1.0.0\n",
        "apiVersion: v9\nname: e\nversion: 1.0.0\n",
        "apiVersion: v2\nname: \nversion: 1.0.0\n",
        "apiVersion: v2\nname: e\nversion: \n",
        "apiVersion: v2\nname: e\nversion: 1.2.3.4\n",
        "apiVersion: v2\nname: e\nversion: 1.2.3-01\n",
        "apiVersion: v2\nname: a/b\nversion: 1.0.0\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\ntype: foo\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\nsources: foo\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\ndeprecated: 'yes'\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\nannotations: [1]\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\nmaintainers: [null]\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies: [{name: a, alias: 'b.c'}]\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies: [{name: a}, {name: a}]\n",
        "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies: [{name: a, tags: x}]\n",
        "- a\n",
        ": bad: :\n",
    ],
)
def test_invalid_chart_yaml_fails_with_helms_message(tmp_path: Path, chart_yaml: str) -> None:
    chart = write_chart(tmp_path / "e", {"Chart.yaml": chart_yaml, "templates/a.yaml": "a: b"})
    helm = helm_template(chart)
    assert helm.returncode != 0
    with pytest.raises(ChartError) as caught:
        load_chart(chart)
    assert str(caught.value) == helm.error


def test_values_yaml_documents_merge_like_helm(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "multi",
        {
            "values.yaml": "a: 1\nl: [1]\nm: {x: 1}\n---\nb: 2\nl: [2]\nm: {y: 2}\n",
            "templates/v.yaml": "{{ .Values | toJson }}",
        },
    )
    helm = helm_template(chart)
    assert marshal(load_chart(chart).values) == helm.document("templates/v.yaml")


def test_chart_map_is_what_helm_4_exposes_as_dot_chart(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "top",
        {
            "Chart.yaml": (
                "apiVersion: v2\nname: top\nversion: 1.0.0\nappVersion: 1.10\n"
                "kubeVersion: '>=1.20.0-0'\nkeywords: [1, true, 1000000, 1.5e6, x]\n"
                "annotations: {b: x, a: y}\nmaintainers: [{name: me, email: a@b}]\n"
                "home: https://example.com\nsources: [s]\nicon: i.png\ndescription: d\n"
                "dependencies:\n- name: sub\n  version: 0.1.0\n  repository: ''\n"
            ),
            "templates/c.yaml": "{{ .Chart | toJson }}",
            "templates/s.yaml": "{{ .Subcharts.sub.Chart | toJson }}",
            "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
        },
    )
    helm = helm_template(chart)
    ours = load_chart(chart)
    top_json, sub_json = helm.document("templates/c.yaml"), helm.document("templates/s.yaml")
    # Helm renders after ProcessDependencies, which marks each dependency enabled.
    for dep in ours.metadata.dependencies:
        dep.enabled = True
    assert marshal(ours.chart_map()) == top_json
    assert marshal(ours.dependencies[0].chart_map()) == sub_json


def _tgz(entries: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for info, data in entries:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def _file(name: str) -> tarfile.TarInfo:
    return tarfile.TarInfo(name)


CHART_YAML = b"apiVersion: v2\nname: arc\nversion: 0.1.0\n"
DUMP_VALUES = "{{ .Values | toJson }}"


def test_archive_loads_like_the_directory(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "arc",
        {
            "values.yaml": "a: 1\n",
            "templates/t.yaml": "x: 1",
            "files/f.txt": "f",
            "charts/s/Chart.yaml": "apiVersion: v2\nname: s\nversion: 1.0.0\n",
        },
    )
    archive = tmp_path / "arc-0.1.0.tgz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(chart, arcname="arc")
    from_dir, from_tgz = load_chart(chart), load_chart(archive)
    assert [f.name for f in from_tgz.files] == [f.name for f in from_dir.files]
    assert from_tgz.values == from_dir.values
    assert [d.name() for d in from_tgz.dependencies] == ["s"]


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("arc/../../evil", "chart illegally references parent directory"),
        ("arc//etc/passwd", "chart illegally contains absolute paths"),
        ("arc/c:/evil", "chart contains illegally named files"),
        ("Chart.yaml", 'chart illegally contains content outside the base directory: "Chart.yaml"'),
        ("Chart.yaml/x", "chart yaml not in base directory"),
    ],
)
def test_entries_escaping_the_chart_are_refused_in_helms_words(
    tmp_path: Path, name: str, message: str
) -> None:
    data = _tgz([(_file("arc/Chart.yaml"), CHART_YAML), (_file(name), b"x")])
    archive = tmp_path / "bad.tgz"
    archive.write_bytes(data)
    with pytest.raises(ChartError, match=re.escape(message)):
        load_chart(archive)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tgz"]


@pytest.mark.parametrize("kind", [tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.CHRTYPE, tarfile.BLKTYPE,
                                  tarfile.FIFOTYPE])
def test_links_devices_and_fifos_are_empty_files_never_followed(tmp_path: Path, kind: bytes) -> None:
    """Go's tar reader gives header-only entries no data: Helm loads each as an empty file."""
    info = _file("arc/files/entry")
    info.type, info.linkname = kind, "/etc/passwd"
    archive = tmp_path / "odd.tgz"
    archive.write_bytes(_tgz([(_file("arc/Chart.yaml"), CHART_YAML), (info, b"")]))
    assert [(f.name, f.data) for f in load_chart(archive).files] == [("files/entry", b"")]


def test_a_name_the_archive_holds_twice_is_kept_twice_as_helm_keeps_it(tmp_path: Path) -> None:
    archive = tmp_path / "dup.tgz"
    archive.write_bytes(_tgz([(_file("arc/Chart.yaml"), CHART_YAML), (_file("arc/f.txt"), b"one"),
                              (_file("arc/f.txt"), b"two")]))
    assert [(f.name, f.data) for f in load_chart(archive).files] == [("f.txt", b"one"), ("f.txt", b"two")]


def test_oversize_file_in_archive_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "big.tgz"
    archive.write_bytes(
        _tgz(
            [
                (_file("arc/Chart.yaml"), CHART_YAML),
                (_file("arc/big.bin"), b"\0" * (5 * 1024 * 1024 + 1)),
            ]
        )
    )
    with pytest.raises(ChartError, match="larger than the maximum file size"):
        load_chart(archive)


def test_gzip_bomb_stops_at_the_chart_size_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gzip

    from runner.chart import archive as archive_module

    # Scaled down (2 MiB limit instead of 100 MiB) to keep the test fast.
    monkeypatch.setattr(archive_module, "MAX_CHART_SIZE", 2 * 1024 * 1024)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        chart_info = _file("arc/Chart.yaml")
        chart_info.size = len(CHART_YAML)
        tar.addfile(chart_info, io.BytesIO(CHART_YAML))
        block = b"\0" * (1024 * 1024)
        for index in range(8):
            info = _file(f"arc/f{index}.bin")
            info.size = len(block)
            tar.addfile(info, io.BytesIO(block))
    archive = tmp_path / "bomb.tgz"
    archive.write_bytes(gzip.compress(buffer.getvalue()))
    assert archive.stat().st_size < 64 * 1024
    with pytest.raises(ChartError, match="larger than the maximum size"):
        load_chart(archive)


def test_non_gzip_file_is_refused_with_helms_wording(tmp_path: Path) -> None:
    path = tmp_path / "values.yaml"
    path.write_text("a: 1\n")
    with pytest.raises(ChartError, match="seems to be a YAML file, but expected a gzipped archive"):
        load_chart(path)


def test_symlinks_are_followed_and_logged_like_helm(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("x: 1\n")
    chart = write_chart(tmp_path / "links", {"templates/files.yaml": FILES_TEMPLATE})
    (chart / "linked").symlink_to(outside)
    (chart / "f.txt").symlink_to(outside / "data.txt")
    helm = helm_template(chart)
    from runner.chart.prepare import prepare_render_values

    loaded = load_chart(chart)
    assert sorted(f.name for f in loaded.files) == _helm_file_names(
        helm.document("templates/files.yaml")
    )
    assert sorted(prepare_render_values(loaded).warning_lines()) == helm.log_lines

    (chart / "broken").symlink_to(tmp_path / "nowhere")
    with pytest.raises(ChartError) as caught:
        load_chart(chart)
    assert str(caught.value) == helm_template(chart).error


def test_v1_chart_reads_requirements_yaml_and_keeps_it_in_files(tmp_path: Path) -> None:
    chart = write_chart(
        tmp_path / "old",
        {
            "Chart.yaml": "apiVersion: v1\nname: old\nversion: 1.0.0\n",
            "requirements.yaml": "dependencies:\n- name: sub\n  version: 1.0.0\n  repository: ''\n  condition: sub.on\n",
            "requirements.lock": "dependencies: []\ndigest: abc\ngenerated: '2020-01-01T00:00:00Z'\n",
            "values.yaml": "sub: {on: false}\n",
            "templates/files.yaml": FILES_TEMPLATE,
            "templates/deps.yaml": "deps: {{ .Chart.Dependencies | toJson }}",
            "charts/sub/Chart.yaml": "apiVersion: v1\nname: sub\nversion: 1.0.0\n",
        },
    )
    helm = helm_template(chart)
    loaded = load_chart(chart)
    assert sorted(f.name for f in loaded.files) == _helm_file_names(
        helm.document("templates/files.yaml")
    )
    assert [d.name for d in loaded.metadata.dependencies] == ["sub"]
    assert loaded.lock is not None and loaded.lock.digest == "abc"
    from runner.chart.prepare import prepare_render_values

    prepare_render_values(loaded)
    # `on` is a YAML 1.1 boolean key, so the condition path is missing and sub stays enabled.
    deps = marshal(loaded.chart_map()["Dependencies"])
    assert f"deps: {deps}" == helm.document("templates/deps.yaml")


ARCHIVE_CASES = {
    "parent": [("arc/Chart.yaml", CHART_YAML), ("arc/../../evil", b"x")],
    "top-level-chart-yaml": [("Chart.yaml", CHART_YAML)],
    "bad-version": [("arc/Chart.yaml", b"apiVersion: v2\nname: arc\nversion: x\n")],
    "v3": [("arc/Chart.yaml", b"apiVersion: v3\nname: arc\nversion: 1.0.0\n")],
    "no-chart-yaml": [("arc/values.yaml", b"a: 1\n")],
}


@pytest.mark.parametrize("case", sorted(ARCHIVE_CASES))
def test_archive_errors_keep_helms_words(tmp_path: Path, case: str) -> None:
    archive = tmp_path / f"{case}.tgz"
    archive.write_bytes(_tgz([(_file(name), data) for name, data in ARCHIVE_CASES[case]]))
    helm = helm_template(archive)
    assert helm.returncode != 0
    with pytest.raises(ChartError) as caught:
        load_chart(archive)
    # Helm 4 hides why an archive is unreadable; we add the reason after its words.
    assert str(caught.value) == helm.error or str(caught.value).startswith(helm.error + ": ")


def test_non_gzip_archive_message_matches_helm(tmp_path: Path) -> None:
    path = tmp_path / "x.tgz"
    path.write_text("hello\n")
    with pytest.raises(ChartError) as caught:
        load_chart(path)
    assert str(caught.value) == helm_template(path).error


def test_extract_writes_only_under_the_destination(tmp_path: Path) -> None:
    """As chartutil.Expand with securejoin: `..` in a file or chart name stops at the
    destination; a link already there is not written through."""
    from runner.chart.archive import extract, read_archive

    data = _tgz([(_file("arc/Chart.yaml"), CHART_YAML), (_file("arc/templates/t.yaml"), b"a: 1")])
    dest = tmp_path / "out"
    assert extract(read_archive(data), dest, "arc") == dest / "arc"
    assert (dest / "arc" / "templates" / "t.yaml").read_bytes() == b"a: 1"
    assert extract([("../../escape.txt", b"x")], dest, "../..") == dest
    assert (dest / "escape.txt").read_bytes() == b"x" and not (tmp_path / "escape.txt").exists()
    (dest / "arc" / "link").symlink_to(tmp_path)
    with pytest.raises(ChartError, match="outside"):
        extract([("link/escape.txt", b"x")], dest, "arc")
    assert not (tmp_path / "escape.txt").exists()


def test_requirements_files_in_a_v2_chart_log_helms_warnings(tmp_path: Path) -> None:
    from runner.chart.prepare import prepare_render_values

    chart = write_chart(
        tmp_path / "r2",
        {
            "requirements.yaml": "dependencies: []\n",
            "requirements.lock": "dependencies: []\n",
            "templates/a.yaml": "a: 1",
        },
    )
    helm = helm_template(chart)
    ours = prepare_render_values(load_chart(chart)).warning_lines()
    assert ours == [line for line in helm.stderr.splitlines() if line.startswith("level=")]


@pytest.mark.parametrize(
    ("constraint", "ok"), [(">=1.36.0", False), (">=1.20.0-0", True), ("~1.35.0", True)]
)
def test_kube_version_constraint_uses_helms_message(
    tmp_path: Path, constraint: str, ok: bool
) -> None:
    from runner.chart.prepare import check_kube_version

    chart = write_chart(
        tmp_path / "kv",
        {
            "Chart.yaml": f"apiVersion: v2\nname: kv\nversion: 1.0.0\nkubeVersion: '{constraint}'\n",
            "templates/a.yaml": "a: 1",
        },
    )
    helm = helm_template(chart)
    assert (helm.returncode == 0) is ok
    if ok:
        check_kube_version(load_chart(chart), "v1.35.0")
        return
    with pytest.raises(ChartError) as caught:
        check_kube_version(load_chart(chart), "v1.35.0")
    assert str(caught.value) == helm.error


@pytest.mark.parametrize(
    "values",
    [
        "a: 1\n--- # comment\nb: 2\n",
        "a: 1\n--- b: 2\n",
        "a: 1\n----\nb: 2\n",
        "---\n---\n",
        "x: |\n  ---\n  y\n",
        "---\na: 1",
        "a: 1\n---",
        "a: 1\n---\n---\nb: 2\n---\n",
        "a: 1\r\n---\r\nb: 2\r\n",
        "a: 1\n---x\n",
    ],
)
def test_values_document_separators_follow_helms_reader(tmp_path: Path, values: str) -> None:
    chart = write_chart(tmp_path / "sep", {"values.yaml": values, "templates/v.yaml": DUMP_VALUES})
    helm = helm_template(chart)
    if helm.returncode != 0:
        with pytest.raises(ChartError) as caught:
            load_chart(chart)
        assert str(caught.value) == helm.error
        return
    assert marshal(load_chart(chart).values) == helm.document("templates/v.yaml")


def test_subchart_archives_skip_the_api_version_dispatch(tmp_path: Path) -> None:
    chart = write_chart(tmp_path / "top", {"templates/a.yaml": "a: 1"})
    sub_yaml = b"apiVersion: v9\nname: s\nversion: 1.0.0\n"
    (chart / "charts").mkdir()
    (chart / "charts" / "s-1.0.0.tgz").write_bytes(_tgz([(_file("s/Chart.yaml"), sub_yaml)]))
    assert helm_template(chart).returncode == 0
    assert [d.name() for d in load_chart(chart).dependencies] == ["s"]
