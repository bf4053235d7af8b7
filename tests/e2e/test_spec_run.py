"""`deploy-runner run` and `diff` on the testbed: a spec of three releases (two independent,
one needing both) deployed, changed, planned, drifted; failures skipping dependants; a
canary secret in no output; spec errors as FILE:LINE lines; a helmfile.yaml of helmfile's
documentation; and the diff against `helm diff upgrade` (the helm-diff plugin)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from threading import Thread

import pytest

from runner.release.redact import MASK
from testbed.kwok_config import EXIT_CODE_ENV, LOG_ENV
from tests.e2e.release_helpers import get_object, ours

pytestmark = pytest.mark.e2e

APP_TEMPLATES = {
    "cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  message: {{ .Values.message | quote }}
  {{- if .Values.token }}
  token: {{ .Values.token | quote }}
  {{- end }}
""",
    "svc.yaml": """apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
spec:
  ports:
  - port: 80
  selector:
    app: {{ .Release.Name }}
""",
    "secret.yaml": """apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
stringData:
  token: {{ .Values.token | default "none" | quote }}
""",
}

SPEC = """\
releases:
- name: db
  chart: ./charts/app
- name: cache
  chart: ./charts/app
  values:
  - message: cache says hi
- name: api
  chart: ./charts/api
  needs: [db, cache]
  secretValues: [secrets.yaml]
  values:
  - values/api.yaml
"""


def _chart(root: Path, name: str, templates: dict[str, str], version: str = "1.0.0") -> Path:
    chart = root / "charts" / name
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: {version}\n")
    (chart / "values.yaml").write_text("message: hello\n")
    for old in (chart / "templates").iterdir():
        old.unlink()
    for file, text in templates.items():
        (chart / "templates" / file).write_text(text)
    return chart


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, str]:
    """A repository with the spec, its charts and values; the canary in its secret values."""
    canary = f"canary-{uuid.uuid4().hex}"
    _chart(tmp_path, "app", APP_TEMPLATES)
    _chart(tmp_path, "api", APP_TEMPLATES)
    (tmp_path / "values").mkdir()
    (tmp_path / "values" / "api.yaml").write_text("message: api v1\n")
    (tmp_path / "secrets.yaml").write_text(f"token: {canary}\n")
    (tmp_path / "deploy-runner.yaml").write_text(SPEC)
    return tmp_path, canary


def in_repository(cluster, namespace, root: Path, *args: str):
    """Our command run from the repository's root, where the spec is."""
    previous = os.getcwd()
    os.chdir(root)
    try:
        return ours(cluster, namespace, *args)
    finally:
        os.chdir(previous)


def run(cluster, namespace, root: Path, *args: str):
    return in_repository(cluster, namespace, root, "run", *args)


def drift(cluster, namespace, root: Path, *args: str):
    return in_repository(cluster, namespace, root, "drift", *args)


def _json(result) -> dict:
    return json.loads(result.out)  # exactly one JSON document: json.loads refuses anything else


def _states(data: dict) -> dict[str, tuple]:
    return {r["name"]: (r["action"], r["status"], r["revision"]) for r in data["releases"]}


def _versions(cluster, namespace: str) -> dict[str, str]:
    """resourceVersion of every object a run could write in the namespace (records included)."""
    client = cluster.client()
    found = {}
    for path in ("/api/v1/namespaces/{ns}/configmaps", "/api/v1/namespaces/{ns}/secrets",
                 "/api/v1/namespaces/{ns}/services", "/apis/coordination.k8s.io/v1/namespaces/{ns}/leases"):
        for item in client.request("GET", path.format(ns=namespace)).body.get("items", []):
            meta = item["metadata"]
            found[f"{path.rsplit('/', 1)[-1]}/{meta['name']}"] = meta["resourceVersion"]
    return found


def test_a_spec_deploys_in_needs_order_then_changes_only_what_changed(cluster, namespace, project):
    root, canary = project
    first = run(cluster, namespace, root, "-o", "json")
    assert first.code == 0, first.err
    data = _json(first)
    assert _states(data) == {"db": ("install", "deployed", 1), "cache": ("install", "deployed", 1),
                             "api": ("install", "deployed", 1)}
    api = next(r for r in data["releases"] if r["name"] == "api")
    assert api["needs"] == [f"{namespace}/db", f"{namespace}/cache"]
    starts = {r["name"]: r["started_at"] for r in data["releases"]}
    ends = {r["name"]: r["finished_at"] for r in data["releases"]}
    assert starts["api"] >= max(ends["db"], ends["cache"])
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/cache-config")["data"] == {
        "message": "cache says hi"}

    (root / "values" / "api.yaml").write_text("message: api v2\n")
    second = run(cluster, namespace, root, "-o", "json")
    assert second.code == 0, second.err
    data = _json(second)
    assert _states(data) == {"db": ("none", "unchanged", 1), "cache": ("none", "unchanged", 1),
                             "api": ("upgrade", "deployed", 2)}
    [change] = next(r for r in data["releases"] if r["name"] == "api")["diff"]["changes"]
    assert (change["key"], change["change"]) == (f"{namespace}, api-config, ConfigMap (v1)", "modify")
    assert [line for line in change["diff"].splitlines() if line[:1] in "+-"] == [
        "-  message: api v1", "+  message: api v2"]  # a minimal diff: the one changed line
    assert change["source"] == {"path": "api/templates/cm.yaml", "line": 1}
    assert change["changed_lines"] == [{"path": "api/templates/cm.yaml", "line": 6}]
    assert canary not in second.out + second.err + first.out + first.err

    history = ours(cluster, namespace, "history", "db", "-o", "json")
    assert [row["revision"] for row in json.loads(history.out)] == [1]  # no revision without a change


def test_plan_writes_nothing_and_shows_drift_and_removals(cluster, namespace, project):
    root, canary = project
    assert run(cluster, namespace, root).code == 0
    # A hand edit under another field manager, a values change, and a template removed.
    client = cluster.client()
    reply = client.request("PATCH", f"/api/v1/namespaces/{namespace}/configmaps/db-config",
                           body={"data": {"message": "edited by hand"}},
                           query=[("fieldManager", "kubectl-edit")],
                           content_type="application/merge-patch+json")
    assert reply.ok, reply.message
    (root / "values" / "api.yaml").write_text("message: api v2\n")
    (root / "charts" / "api" / "templates" / "svc.yaml").unlink()
    before = _versions(cluster, namespace)

    plan = run(cluster, namespace, root, "--plan", "--detailed-exitcode", "-o", "json")
    assert plan.code == 2, plan.err  # changes would happen
    assert _versions(cluster, namespace) == before  # nothing written, records and locks included
    data = _json(plan)
    assert _states(data) == {"db": ("upgrade", "planned", 2), "cache": ("none", "unchanged", 1),
                             "api": ("upgrade", "planned", 2)}
    db = next(r for r in data["releases"] if r["name"] == "db")
    [drift] = db["diff"]["changes"]
    assert "-  message: edited by hand\n+  message: hello\n" in drift["diff"]
    assert "kubectl-edit" in drift["note"]
    api = next(r for r in data["releases"] if r["name"] == "api")
    assert [(c["change"], c["kind"], c["name"]) for c in api["diff"]["changes"]] == [
        ("modify", "ConfigMap", "api-config"), ("remove", "Service", "api")]
    text = run(cluster, namespace, root, "--plan")
    assert f"{namespace}, api, Service (v1) has been removed:" in text.out
    assert "Plan: 0 to install, 2 to upgrade, 0 to uninstall, 1 unchanged." in text.out
    assert _versions(cluster, namespace) == before
    assert canary not in plan.out + plan.err + text.out + text.err


def test_drift_reports_edits_outside_the_spec_in_text_and_json(cluster, namespace, project):
    root, canary = project
    assert run(cluster, namespace, root).code == 0
    clean = drift(cluster, namespace, root, "-o", "json")
    assert clean.code == 0, clean.err
    assert _json(clean)["drift"] is False
    assert [r["drift"] for r in _json(clean)["releases"]] == [[], [], []]

    client = cluster.client()
    handmade = f"handmade-{uuid.uuid4().hex}"
    for path, body in (("configmaps/db-config", {"data": {"message": "edited by hand"}}),
                       ("secrets/api-secret", {"stringData": {"token": handmade}})):
        reply = client.request("PATCH", f"/api/v1/namespaces/{namespace}/{path}", body=body,
                               query=[("fieldManager", "kubectl-edit")],
                               content_type="application/merge-patch+json")
        assert reply.ok, reply.message
    (root / "values" / "api.yaml").write_text("message: api v2\n")  # changed, not deployed
    before = _versions(cluster, namespace)

    found = drift(cluster, namespace, root, "-o", "json")
    assert found.code == 2, found.err
    data = _json(found)
    assert data["drift"] is True and data["exit_code"] == 2
    kinds = {r["name"]: r["drift"] for r in data["releases"]}
    assert kinds == {"db": ["objects"], "cache": [], "api": ["revision", "objects"]}
    db = next(r for r in data["releases"] if r["name"] == "db")
    assert db["details"] == [f"changed outside the spec: ConfigMap/db-config in {namespace}"]
    text = drift(cluster, namespace, root)
    assert text.code == 2, text.err
    assert (f"{namespace}/db: drift\n  changed outside the spec: ConfigMap/db-config in {namespace}\n"
            in text.out)
    assert f"{namespace}/cache: no drift\n" in text.out
    assert text.out.endswith("environment default: drift\n")
    assert _versions(cluster, namespace) == before  # drift writes nothing
    for output in (found, text):
        assert canary not in output.out + output.err and handmade not in output.out + output.err


def test_a_failing_release_skips_its_dependants_and_not_the_others(cluster, namespace, project):
    root, _ = project
    _chart(root, "api", {"bad.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Not_A_Name\n"})
    spec = SPEC + "- name: web\n  chart: ./charts/app\n  needs: [api]\n"
    (root / "deploy-runner.yaml").write_text(spec)
    result = run(cluster, namespace, root, "-o", "json")
    assert result.code == 1
    data = _json(result)
    states = {r["name"]: (r["status"], r["reason"]) for r in data["releases"]}
    assert states["db"] == ("deployed", None) and states["cache"] == ("deployed", None)
    assert states["api"][0] == "failed"
    assert states["web"] == ("skipped", f"it needs {namespace}/api, which failed")
    api = next(r for r in data["releases"] if r["name"] == "api")
    assert "Not_A_Name" in api["error"] and api["evidence"]
    assert get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/web-config") is None


FAILING_HOOK = f"""apiVersion: batch/v1
kind: Job
metadata:
  name: {{{{ .Release.Name }}}}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-output-log-policy": hook-failed
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: main
        image: busybox
        env:
        - {{name: {LOG_ENV}, value: "migrating\\nconnecting with {{{{ .Values.token }}}}\\nERROR relation exists"}}
        - {{name: {EXIT_CODE_ENV}, value: "1"}}
"""


def test_the_text_report_of_a_failed_hook_shows_its_log_and_what_failed(cluster, namespace, project):
    """What the JSON carries (not_ready, hook_logs) is in the text and markdown reports too,
    the secret in the hook's log line redacted."""
    root, canary = project
    _chart(root, "api", {**APP_TEMPLATES, "migrate.yaml": FAILING_HOOK})
    # (the second run upgrades the failed release: its pre-upgrade hook fails the same way)
    outputs = {fmt: run(cluster, namespace, root, "--release", "api", "-o", fmt) for fmt in ("text", "markdown")}

    text, md = outputs["text"].out, outputs["markdown"].out
    assert outputs["text"].code == 1, outputs["text"].err
    assert f"  not ready: Job/api-migrate in {namespace} (pre-install hook api/templates/migrate.yaml)" in text
    hook = text[text.index("  hook Job/api-migrate (Failed), pod api-migrate-"):]
    assert hook.splitlines()[0].endswith(", container main  [api/templates/migrate.yaml]")
    # (redacted where the hook's log is captured, by runner.release.redact: its mask)
    assert hook.splitlines()[1:4] == ["    migrating", f"    connecting with {MASK}", "    ERROR relation exists"]
    assert "**Not ready:** Job/api-migrate" in md and f"connecting with {MASK}\nERROR relation exists" in md
    for output in outputs.values():
        assert canary not in output.out and canary not in output.err


def test_a_canary_secret_never_appears_in_any_output(cluster, namespace, project):
    root, canary = project
    outputs = [run(cluster, namespace, root, "--plan", "-o", fmt) for fmt in ("text", "json", "markdown")]
    outputs.append(run(cluster, namespace, root))
    (root / "secrets.yaml").write_text(f"token: {canary}-2\n")
    outputs += [run(cluster, namespace, root, "--plan", "-o", fmt) for fmt in ("text", "json", "markdown")]
    outputs.append(run(cluster, namespace, root, "-o", "markdown"))
    secret = get_object(cluster, f"/api/v1/namespaces/{namespace}/secrets/api-secret")
    assert secret is not None  # the secret itself was deployed
    for output in outputs:
        assert canary not in output.out and canary not in output.err
    plan = _json(outputs[5])
    api = next(r for r in plan["releases"] if r["name"] == "api")
    secret_change = next(c for c in api["diff"]["changes"] if c["kind"] == "Secret")
    assert secret_change["secret_keys"] == {"added": [], "changed": ["token"], "removed": []}
    assert MASK in outputs[5].out  # the ConfigMap's copy of the token, hidden


def test_a_plain_helmfile_from_helmfiles_documentation_runs(cluster, namespace, tmp_path, monkeypatch):
    chart = tmp_path / "src" / "prometheus"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: prometheus\nversion: 25.0.0\n")
    (chart / "values.yaml").write_text("rbac:\n  create: true\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        "data:\n  rbac: {{ .Values.rbac.create | quote }}\n")
    repo = tmp_path / "repo"
    monkeypatch.setenv("HELM_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HELM_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HELM_DATA_HOME", str(tmp_path / "data"))
    assert ours(cluster, namespace, "package", str(chart), "-d", str(repo)).code == 0
    with _served(repo) as url:
        assert ours(cluster, namespace, "repo", "index", str(repo), "--url", url).code == 0
        # helmfile's Getting Started example, its repository served here, its namespace ours.
        (tmp_path / "helmfile.yaml").write_text(f"""\
repositories:
 - name: prometheus-community
   url: {url}

releases:
- name: prom-norbac-ubuntu
  namespace: {namespace}
  chart: prometheus-community/prometheus
  set:
  - name: rbac.create
    value: false
""")
        result = run(cluster, namespace, tmp_path, "--spec", "helmfile.yaml")
    assert result.code == 0, result.err
    assert "prom-norbac-ubuntu: install, revision 1, ssa: deployed" in result.out
    cm = get_object(cluster, f"/api/v1/namespaces/{namespace}/configmaps/prom-norbac-ubuntu")
    assert cm["data"] == {"rbac": "false"}
    assert not (tmp_path / "config" / "helm" / "repositories.yaml").exists()  # the user's repos untouched


@pytest.mark.parametrize(("spec", "expected"), [
    ("releases:\n- name: a\n  chart: [./a\n", "deploy-runner.yaml:4: yaml: did not find expected ',' or ']'"),
    ("releases:\n- name: a\n  chart: ./a\n  chrat: ./b\n",
     "deploy-runner.yaml:4: releases[0].chrat: unknown key (did you mean chart?)"),
    ("releases:\n- name: a\n  chart: ./a\n  historyDepth: two\n",
     "deploy-runner.yaml:4: releases[0].historyDepth: must be an integer"),
    ("releases:\n- {name: a, chart: ./a, needs: [b]}\n- {name: b, chart: ./b, needs: [a]}\n",
     "deploy-runner.yaml:2: releases[0].needs: a needs cycle: a needs b needs a"),
    ("releases:\n- name: a\n  chart: ./a\n  namespace: ${nmespace}\n",
     "deploy-runner.yaml:4: releases[0].namespace: unknown variable ${nmespace}"),
])
def test_spec_errors_name_file_line_and_field(tmp_path, spec, expected):
    (tmp_path / "deploy-runner.yaml").write_text(spec)
    program = Path(sys.executable).parent / "deploy-runner"
    done = subprocess.run([str(program), "run", "--plan"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, check=False)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"Error: {expected}")
    assert "Traceback" not in done.stderr


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
        pass


class _served:
    """A directory served over HTTP on loopback (a chart repository)."""

    def __init__(self, directory: Path) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(directory)))

    def __enter__(self) -> str:
        Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
