"""HIP-0029 .Release.History and HIP-0027 .DeployedChart(s) at render time, on the testbed."""

from __future__ import annotations

import pytest

from tests.e2e.release_helpers import comparable, get_object, ours, record
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

HISTORY_TEMPLATE = {"history.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-history
data:
  count: {{ len .Release.History | quote }}
  entries: "{{ range .Release.History }}{{ .Revision }}:{{ .Status }}:{{ .Chart.Version }}:{{ .Name }} {{ end }}"
  deployed: "{{ with .DeployedChart }}{{ .Version }}{{ end }}"
  charts: "{{ range .DeployedCharts }}{{ .Name }}-{{ .Version }} {{ end }}"
  values: "{{ range .Release.History }}[{{ .Values.message }}]{{ end }}"
  message: {{ .Values.message | quote }}
"""}


def _data(cluster, namespace: str, name: str) -> dict:
    return get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/{name}-history")["data"]


def test_history_is_empty_by_default_and_filled_newest_first_with_the_flag(cluster, namespace, tmp_path):
    v1 = write_chart(tmp_path, version="1.0.0", templates=HISTORY_TEMPLATE)
    v2 = write_chart(tmp_path, version="2.0.0", templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "h", str(v1), "--release-history-max", "2",
                "--set", "message=a").code == 0
    assert _data(cluster, namespace, "h")["count"] == "0"

    assert ours(cluster, namespace, "upgrade", "h", str(v2), "--set", "message=b").code == 0
    assert _data(cluster, namespace, "h")["count"] == "0"  # default depth 0

    assert ours(cluster, namespace, "upgrade", "h", str(v2), "--set", "message=c",
                "--release-history-max", "2").code == 0
    data = _data(cluster, namespace, "h")
    assert data["count"] == "2"
    assert data["entries"] == "2:deployed:2.0.0:h 1:superseded:1.0.0:h "
    assert data["deployed"] == "2.0.0"
    assert data["charts"] == "demo-2.0.0 demo-1.0.0 "
    assert data["values"] == "[][]"  # values only with --include-history-values


def test_history_values_with_the_flag_and_deployed_depth_alias(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "v", str(chart), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--set", "message=b").code == 0
    assert ours(cluster, namespace, "upgrade", "v", str(chart), "--set", "message=c",
                "--deployed-depth", "5", "--include-history-values").code == 0
    data = _data(cluster, namespace, "v")
    assert data["count"] == "2"
    assert data["values"] == "[b][a]"


def test_dry_run_client_sees_no_history_and_dry_run_server_sees_it(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "d", str(chart), "--set", "message=a").code == 0
    client = ours(cluster, namespace, "upgrade", "d", str(chart), "--dry-run=client",
                  "--release-history-max", "3")
    assert client.code == 0
    server = ours(cluster, namespace, "upgrade", "d", str(chart), "--dry-run=server",
                  "--release-history-max", "3", "-o", "json")
    assert server.code == 0
    import json

    manifest = json.loads(server.out)["manifest"]
    assert 'count: "1"' in manifest


def test_rollback_keeps_the_target_revisions_manifest(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    assert ours(cluster, namespace, "install", "r", str(chart), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "upgrade", "r", str(chart), "--set", "message=b",
                "--release-history-max", "1").code == 0
    assert _data(cluster, namespace, "r")["count"] == "1"
    assert ours(cluster, namespace, "rollback", "r", "1").code == 0
    assert _data(cluster, namespace, "r")["count"] == "0"


# -- issue 17: install over kept records, rollback with history, small gaps -----------

REVISION_TEMPLATE = {"rev.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-rev
data:
  revision: {{ .Release.Revision | quote }}
  install: {{ .Release.IsInstall | quote }}
  message: {{ .Values.message | quote }}
"""}
SEES_TEMPLATE = {**HISTORY_TEMPLATE, **REVISION_TEMPLATE}


def _json_manifest_data(out: str, name: str) -> dict:
    import json

    import yaml

    doc = json.loads(out)  # install/upgrade: Helm's release; rollback: our result with its release
    docs = [d for d in yaml.safe_load_all(doc.get("manifest") or doc["release"]["manifest"]) if d]
    return next(d["data"] for d in docs if d["metadata"]["name"] == name)


def _rows(helm, name: str, namespace: str) -> list[tuple]:
    import json

    history = helm("history", name, "-n", namespace, "-o", "json")
    assert history.returncode == 0, history.stderr
    return [(r["revision"], r["status"], r["description"]) for r in json.loads(history.stdout)]


@pytest.mark.parametrize("how", [("install", "--replace"), ("upgrade", "--install")], ids=" ".join)
def test_install_over_kept_records_renders_as_an_install(cluster, namespace, helm, tmp_path, how):
    """HIP-0029: an install sees `[]` and revision 1 whatever records are kept (the record is
    revision 2, as Helm's); Helm, on a chart without history, renders the same revision."""
    v1 = write_chart(tmp_path, version="1.0.0", templates=SEES_TEMPLATE)
    v2 = write_chart(tmp_path, version="2.0.0", templates=SEES_TEMPLATE)
    plain = write_chart(tmp_path, name="plain", templates=REVISION_TEMPLATE)
    verb, flag = how
    again = [verb, "k", str(v2), flag, "--release-history-max", "3", "--set", "message=b"]
    assert ours(cluster, namespace, "install", "k", str(v1), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "uninstall", "k", "--keep-history").code == 0
    server = ours(cluster, namespace, *again, "--dry-run=server", "-o", "json")
    assert server.code == 0, server.err
    assert _json_manifest_data(server.out, "k-history")["count"] == "0"
    assert ours(cluster, namespace, *again).code == 0
    for data in (_data(cluster, namespace, "k"), _json_manifest_data(server.out, "k-history")):
        assert (data["count"], data["entries"], data["deployed"], data["charts"]) == ("0", "", "", "")
    # Helm and us, the same steps on a chart without .Release.History: same revision rendered, same records
    for name, run in _runners(cluster, namespace, helm):
        name = {"theirs": "hk", "mine": "ok"}[name]
        assert run("install", name, str(plain), "--set", "message=a")[0] == 0
        assert run("uninstall", name, "--keep-history")[0] == 0
        assert run(verb, name, str(plain), flag, "--set", "message=b")[0] == 0
    revs = [get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/{n}-rev")["data"] for n in ("hk", "ok")]
    assert revs[0] == revs[1] == {"revision": "1", "install": "true", "message": "b"}
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/k-rev")["data"]["revision"] == "1"
    assert _rows(helm, "hk", namespace) == _rows(helm, "ok", namespace)
    assert _rows(helm, "k", namespace)[-1][:2] == (2, "deployed")


def test_rollback_with_history_rerenders_the_target_and_helm_reads_the_record(cluster, namespace, helm, tmp_path):
    v1 = write_chart(tmp_path, version="1.0.0", templates=SEES_TEMPLATE)
    v2 = write_chart(tmp_path, version="2.0.0", templates=SEES_TEMPLATE)
    assert ours(cluster, namespace, "install", "rb", str(v1), "--set", "message=a").code == 0
    assert ours(cluster, namespace, "upgrade", "rb", str(v2), "--set", "message=b").code == 0

    dry = ours(cluster, namespace, "rollback", "rb", "1", "--release-history-max", "5",
               "--include-history-values", "--dry-run=server", "-o", "json")
    assert dry.code == 0, dry.err
    assert _json_manifest_data(dry.out, "rb-history")["entries"] == "2:deployed:2.0.0:rb 1:superseded:1.0.0:rb "
    assert len(_rows(helm, "rb", namespace)) == 2  # nothing written

    assert ours(cluster, namespace, "rollback", "rb", "1", "--release-history-max", "5",
                "--include-history-values").code == 0
    data = _data(cluster, namespace, "rb")
    assert (data["count"], data["entries"], data["deployed"], data["values"], data["message"]) == (
        "2", "2:deployed:2.0.0:rb 1:superseded:1.0.0:rb ", "2.0.0", "[b][a]", "a")
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/rb-rev")["data"]["revision"] == "3"
    assert _rows(helm, "rb", namespace) == [
        (1, "superseded", "Install complete"), (2, "superseded", "Upgrade complete"),
        (3, "deployed", "Rollback to 1 (re-rendered with .Release.History)")]
    everything = helm("get", "all", "rb", "-n", namespace)
    assert everything.returncode == 0, everything.stderr
    assert 'count: "2"' in everything.stdout and "REVISION: 3" in everything.stdout
    # and Helm rolls back from it as from any record
    assert helm("rollback", "rb", "2", "-n", namespace).returncode == 0
    assert _data(cluster, namespace, "rb")["message"] == "b"


def _runners(cluster, namespace: str, helm):
    """(name, run) for Helm and for us: run(*args) -> (exit code, stdout, stderr)."""
    def theirs(*args: str) -> tuple[int, str, str]:
        done = helm(*args, "-n", namespace)
        return done.returncode, done.stdout, done.stderr

    def mine(*args: str) -> tuple[int, str, str]:
        done = ours(cluster, namespace, *args)
        return done.code, done.out, done.err

    return (("theirs", theirs), ("mine", mine))


def test_rollback_without_history_flags_writes_helms_record(cluster, namespace, helm, tmp_path):
    v1 = write_chart(tmp_path, version="1.0.0", templates=REVISION_TEMPLATE)  # Helm has no .Release.History
    v2 = write_chart(tmp_path, version="2.0.0", templates=REVISION_TEMPLATE)
    dry_runs = {}
    for name, run in _runners(cluster, namespace, helm):
        assert run("install", name, str(v1), "--set", "message=a")[0] == 0
        assert run("upgrade", name, str(v2), "--set", "message=b")[0] == 0
        dry_runs[name] = [run("rollback", name, "1", "--dry-run=server"),
                          run("rollback", name, "1", "--dry-run=client")]
        assert len(_rows(helm, name, namespace)) == 2  # dry runs write nothing
        assert run("rollback", name, "1")[0] == 0
    assert dry_runs["mine"] == dry_runs["theirs"]
    theirs = comparable(record(cluster, namespace, "theirs", 3), "theirs")
    mine = comparable(record(cluster, namespace, "mine", 3), "mine")
    assert mine == theirs


def test_history_times_are_the_stored_instants(cluster, namespace, tmp_path):
    times = {"times.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-times
data:
  last: "{{ range .Release.History }}{{ .LastDeployed.UnixNano }}{{ end }}"
  first: "{{ range .Release.History }}{{ .FirstDeployed.Nanosecond }}{{ end }}"
"""}
    chart = write_chart(tmp_path, templates=times)
    assert ours(cluster, namespace, "install", "t", str(chart)).code == 0
    stored = record(cluster, namespace, "t", 1)["info"]
    assert ours(cluster, namespace, "upgrade", "t", str(chart), "--release-history-max", "1").code == 0
    data = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/t-times")["data"]
    assert stored["last_deployed"].endswith("Z")  # the testbed writes UTC
    assert data == {"last": str(_unix_nanos(stored["last_deployed"])),
                    "first": str(_unix_nanos(stored["first_deployed"]) % 1_000_000_000)}


def _unix_nanos(text: str) -> int:
    """An RFC 3339 UTC timestamp with up to nine fractional digits, in nanoseconds."""
    from datetime import UTC, datetime

    head, _, fraction = text.removesuffix("Z").partition(".")
    seconds = int(datetime.fromisoformat(head).replace(tzinfo=UTC).timestamp())
    return seconds * 1_000_000_000 + int((fraction + "000000000")[:9])


def test_history_depth_flag_errors_and_template(cluster, namespace, tmp_path):
    chart = write_chart(tmp_path, templates=HISTORY_TEMPLATE)
    for args in (["install", "n", str(chart)], ["upgrade", "n", str(chart), "--install"], ["rollback", "n"],
                 ["template", "n", str(chart)]):
        for flag in ("--release-history-max", "--deployed-depth"):
            run = ours(cluster, namespace, *args, flag, "-1")
            assert (run.code, run.err) == (1, f'Error: invalid argument "-1" for "{flag}" flag: must be 0 '
                                              "(no history) or more\n"), args
    rendered = ours(cluster, namespace, "template", "n", str(chart), "--release-history-max", "3",
                    "--include-history-values")
    assert rendered.code == 0 and 'count: "0"' in rendered.out


def test_install_takes_a_bare_server_side_as_helm(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path)
    assert helm("install", "bs-h", str(chart), "-n", namespace, "--server-side").returncode == 0
    assert ours(cluster, namespace, "install", "bs-o", str(chart), "--server-side").code == 0
    theirs = comparable(record(cluster, namespace, "bs-h", 1), "bs-h")
    mine = comparable(record(cluster, namespace, "bs-o", 1), "bs-o")
    assert mine == theirs and mine["apply_method"] == "ssa"


def test_the_example_migrates_down_on_a_rollback_across_a_major_version(cluster, namespace, helm, tmp_path):
    """examples/migrating-app (docs/releases.md): up-migration hook on the 1.x -> 2.x upgrade,
    down-migration hook on the rollback to 1.x with --release-history-max; none without."""
    from testbed.demo import EXAMPLE

    assert ours(cluster, namespace, "install", "shop", str(EXAMPLE)).code == 0
    assert ours(cluster, namespace, "package", str(EXAMPLE), "--version", "2.0.0", "-d", str(tmp_path)).code == 0
    v2 = str(tmp_path / "migrating-app-2.0.0.tgz")
    assert ours(cluster, namespace, "upgrade", "shop", v2, "--release-history-max", "2").code == 0
    jobs = f"/apis/batch/v1/namespaces/{namespace}/jobs"
    up = get_object(cluster, f"{jobs}/shop-migrate-v1-to-v2")
    assert "migrating data up" in up["spec"]["template"]["spec"]["containers"][0]["command"][-1]

    assert ours(cluster, namespace, "rollback", "shop", "1", "--release-history-max", "2").code == 0
    down = get_object(cluster, f"{jobs}/shop-migrate-v2-to-v1")
    assert "migrating data down" in down["spec"]["template"]["spec"]["containers"][0]["command"][-1]
    hooks = helm("get", "hooks", "shop", "-n", namespace)
    assert hooks.returncode == 0 and "shop-migrate-v2-to-v1" in hooks.stdout
    notes = helm("get", "notes", "shop", "-n", namespace).stdout
    assert "is at chart 1.4.0 (revision 3)" in notes and "Came from chart 2.0.0." in notes

    # Helm's rollback (ours without the flag too) re-applies a stored revision with its stored
    # hooks: revision 1 was rendered without history, so no down-migration
    assert ours(cluster, namespace, "upgrade", "shop", v2).code == 0
    cluster.client().request("DELETE", f"{jobs}/shop-migrate-v2-to-v1?propagationPolicy=Background")
    _wait_gone(cluster, f"{jobs}/shop-migrate-v2-to-v1")
    assert helm("rollback", "shop", "1", "-n", namespace).returncode == 0
    assert get_object(cluster, f"{jobs}/shop-migrate-v2-to-v1") is None


def _wait_gone(cluster, path: str, seconds: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while get_object(cluster, path) is not None:
        assert time.monotonic() < deadline, f"{path} still exists"
        time.sleep(0.2)


def _manifest_data(helm, name: str, namespace: str, revision: int) -> dict:
    """The history ConfigMap's data in the stored manifest of a revision, as Helm reads it."""
    import yaml

    shown = helm("get", "manifest", name, "-n", namespace, "--revision", str(revision))
    assert shown.returncode == 0, shown.stderr
    docs = [d for d in yaml.safe_load_all(shown.stdout) if d]
    return next(d["data"] for d in docs if d["metadata"]["name"] == f"{name}-history")


def test_rollback_deployed_depth_limits_deployed_charts(cluster, namespace, helm, tmp_path):
    """HIP-0027's --deployed-depth M on a rollback (an alias of --release-history-max: given
    with it, the later one counts, as a flag given twice): .DeployedCharts holds the M
    releases before the new revision, newest first, .DeployedChart the one rolled back
    from (HIP-0027: "Up to N most recent deployed versions"; during a rollback "the
    currently deployed version (being rolled back from)")."""
    charts = [write_chart(tmp_path, version=f"{major}.0.0", templates=HISTORY_TEMPLATE) for major in (1, 2, 3, 4)]
    assert ours(cluster, namespace, "install", "dd", str(charts[0]), "--set", "message=a").code == 0
    for chart in charts[1:]:
        assert ours(cluster, namespace, "upgrade", "dd", str(chart), "--reuse-values").code == 0

    # revisions 1-4 are charts 1.0.0-4.0.0; rollback to 1 writes revision 5
    rolled = ours(cluster, namespace, "rollback", "dd", "1", "--release-history-max", "5", "--deployed-depth", "2")
    assert rolled.code == 0, rolled.err
    data = _manifest_data(helm, "dd", namespace, 5)
    assert (data["count"], data["deployed"], data["charts"], data["entries"]) == (
        "2", "4.0.0", "demo-4.0.0 demo-3.0.0 ", "4:deployed:4.0.0:dd 3:superseded:3.0.0:dd ")  # as they were when rendered
    assert data["message"] == "a"  # revision 1's stored values, re-rendered

    # the other order: --release-history-max 1 comes last; revision 5 holds chart 1.0.0
    assert ours(cluster, namespace, "rollback", "dd", "2", "--deployed-depth", "3",
                "--release-history-max", "1").code == 0
    data = _manifest_data(helm, "dd", namespace, 6)
    assert (data["count"], data["deployed"], data["charts"]) == ("1", "1.0.0", "demo-1.0.0 ")

    # --deployed-depth alone, deeper than the depth of the previous rollbacks
    assert ours(cluster, namespace, "rollback", "dd", "3", "--deployed-depth", "4").code == 0
    data = _manifest_data(helm, "dd", namespace, 7)
    assert (data["count"], data["deployed"], data["charts"]) == (
        "4", "2.0.0", "demo-2.0.0 demo-1.0.0 demo-4.0.0 demo-3.0.0 ")
    assert data == _data(cluster, namespace, "dd")  # what was applied is what was recorded
    assert [row[:2] for row in _rows(helm, "dd", namespace)][-1] == (7, "deployed")
