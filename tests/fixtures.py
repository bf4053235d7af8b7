"""The charts tests write, in one place: the demo chart (a ConfigMap, a Deployment, a
pre-install/pre-upgrade hook ConfigMap, NOTES.txt) and its parts. A test that needs a
variant builds it from these parts (`{**DEMO_TEMPLATES, "extra.yaml": ...}`,
`CM_ONLY`), so each template text lives here once."""

from __future__ import annotations

from pathlib import Path

CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cm
data:
  message: {{ .Values.message | quote }}
"""
DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
"""
HOOK_CONFIG_MAP = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-hook
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade
    "helm.sh/hook-delete-policy": before-hook-creation
data:
  x: "1"
"""
NOTES = "Thanks for installing {{ .Release.Name }} ({{ .Values.message }}).\n"

DEMO_TEMPLATES = {"cm.yaml": CONFIG_MAP, "deploy.yaml": DEPLOYMENT, "hook.yaml": HOOK_CONFIG_MAP,
                  "NOTES.txt": NOTES}
CM_ONLY = {"cm.yaml": CONFIG_MAP}  # a release of one ConfigMap


def write_chart(root: Path, name: str = "demo", version: str = "1.0.0",
                templates: dict[str, str] | None = None, values: str = "replicas: 1\nmessage: hello\n") -> Path:
    """The chart `name` at `version` under `root` (its directory `name-version`), with the
    demo chart's templates unless `templates` are given."""
    chart = root / f"{name}-{version}"
    (chart / "templates").mkdir(parents=True, exist_ok=True)
    (chart / "Chart.yaml").write_text(
        f"apiVersion: v2\nname: {name}\nversion: {version}\nappVersion: \"1.16\"\n"
        "description: A demo chart\n")
    (chart / "values.yaml").write_text(values)
    for file, text in (DEMO_TEMPLATES if templates is None else templates).items():
        (chart / "templates" / file).write_text(text)
    return chart
