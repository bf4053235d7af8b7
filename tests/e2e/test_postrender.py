"""install/upgrade --post-renderer on the testbed, beside Helm 4.1.4 doing the same.

A postrenderer/v1 plugin made here (sed adding a label after each top-level
`name:`) is passed to both tools through $HELM_PLUGINS. The stored release
(manifest, hooks, values) must equal Helm's, and the objects in the cluster
must carry what the plugin added, hooks included.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.release_helpers import get_object, ours, record
from tests.fixtures import DEMO_TEMPLATES, write_chart

pytestmark = pytest.mark.e2e

PLUGIN_YAML = """\
apiVersion: v1
name: label
type: postrenderer/v1
runtime: subprocess
version: 0.1.0
runtimeConfig:
  platformCommand:
    - command: ${HELM_PLUGIN_DIR}/run.sh
"""
# $1 (--post-renderer-args) is the label's value.
PLUGIN_SCRIPT = """#!/bin/sh
sed "s/^  name: \\(.*\\)$/  name: \\1\\n  labels:\\n    post-rendered: \\"$1\\"/"
"""
TEMPLATES = {
    "cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  message: {{ .Values.message | quote }}
  extra: {{ .Values.extra | default "none" | quote }}
""",
    "deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 1
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
      - name: web
        image: "nginx:1.25"
        args: [ "--port",   '8080' ]
""",
    "hook.yaml": DEMO_TEMPLATES["hook.yaml"],
    "NOTES.txt": "Installed {{ .Release.Name }}.\n",
}


@pytest.fixture(autouse=True)
def plugins(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The plugin directory, in the environment before the `helm` fixture copies it."""
    root = tmp_path_factory.mktemp("plugins")
    (root / "label").mkdir()
    (root / "label" / "plugin.yaml").write_text(PLUGIN_YAML)
    (root / "label" / "run.sh").write_text(PLUGIN_SCRIPT)
    (root / "label" / "run.sh").chmod(0o755)
    monkeypatch.setenv("HELM_PLUGINS", str(root))
    monkeypatch.setenv("HELM_NO_PLUGINS", "1")
    yield root


def _stored(cluster: Any, namespace: str, name: str, version: int) -> dict[str, Any]:
    """What the post-renderer shaped in a record, the release name replaced by NAME."""
    data = record(cluster, namespace, name, version)
    hooks = [(h["name"], h["path"], h["manifest"], h["events"]) for h in data.get("hooks") or []]
    shaped = {"manifest": data["manifest"], "hooks": hooks, "config": data.get("config"),
              "notes": data["info"].get("notes")}
    return _renamed(shaped, name)


def _renamed(value: Any, name: str) -> Any:
    if isinstance(value, str):
        return value.replace(name, "NAME")
    if isinstance(value, dict):
        return {k: _renamed(v, name) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_renamed(v, name) for v in value]
    return value


def _label(cluster: Any, namespace: str, kind: str, name: str) -> str | None:
    path = {"cm": f"/api/v1/namespaces/{namespace}/configmaps/{name}",
            "deploy": f"/apis/apps/v1/namespaces/{namespace}/deployments/{name}"}[kind]
    found = get_object(cluster, path)
    assert found is not None, f"{kind} {name} is missing"
    return (found["metadata"].get("labels") or {}).get("post-rendered")


def test_install_and_upgrade_post_render_as_helm(cluster, namespace, helm, tmp_path):
    chart = write_chart(tmp_path, templates=TEMPLATES, values="message: hello\n")
    (tmp_path / "a.yaml").write_text("message: from-a\n")
    (tmp_path / "b.yaml").write_text("extra: from-b\n")
    install = ("--post-renderer", "label", "--post-renderer-args", "one",
               "-f", f"{tmp_path / 'a.yaml'},{tmp_path / 'b.yaml'}")
    theirs = helm("install", "rel-helm", str(chart), "-n", namespace, *install)
    assert theirs.returncode == 0, theirs.stderr
    mine = ours(cluster, namespace, "install", "rel-ours", str(chart), *install)
    assert mine.code == 0, mine.err
    assert _stored(cluster, namespace, "rel-ours", 1) == _stored(cluster, namespace, "rel-helm", 1)
    assert _stored(cluster, namespace, "rel-ours", 1)["config"] == {"message": "from-a", "extra": "from-b"}
    for release in ("rel-helm", "rel-ours"):
        assert _label(cluster, namespace, "cm", f"{release}-cm") == "one"
        assert _label(cluster, namespace, "cm", f"{release}-hook") == "one"
        assert _label(cluster, namespace, "deploy", f"{release}-web") == "one"

    upgrade = ("--post-renderer-args", "two", "--post-renderer", "label", "--set", "message=again")
    theirs = helm("upgrade", "rel-helm", str(chart), "-n", namespace, *upgrade)
    assert theirs.returncode == 0, theirs.stderr
    mine = ours(cluster, namespace, "upgrade", "rel-ours", str(chart), *upgrade)
    assert mine.code == 0, mine.err
    assert _stored(cluster, namespace, "rel-ours", 2) == _stored(cluster, namespace, "rel-helm", 2)
    for release in ("rel-helm", "rel-ours"):
        assert _label(cluster, namespace, "cm", f"{release}-cm") == "two"
        assert _label(cluster, namespace, "cm", f"{release}-hook") == "two"


def test_a_failing_post_renderer_fails_install_as_helm(cluster, namespace, helm, tmp_path, plugins):
    (plugins / "label" / "run.sh").write_text("#!/bin/sh\nexit 1\n")
    chart = write_chart(tmp_path, templates=TEMPLATES, values="message: hello\n")
    theirs = helm("install", "rel-helm", str(chart), "-n", namespace, "--post-renderer", "label")
    mine = ours(cluster, namespace, "install", "rel-ours", str(chart), "--post-renderer", "label")
    assert (mine.code != 0, mine.err) == (theirs.returncode != 0, theirs.stderr)
    assert "INSTALLATION FAILED: error while running post render on files" in mine.err
