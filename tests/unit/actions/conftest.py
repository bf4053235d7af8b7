"""Release actions over the fake cluster (tests/unit/fakes) and a recording memory store."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from runner.actions.journal import Journal
from runner.actions.release_config import ActionConfig
from runner.release.storage import Storage
from tests.fixtures import CONFIG_MAP
from tests.unit.fakes.cluster import FakeCluster
from tests.unit.fakes.storage import RecordingDriver

TEMPLATES = {
    "cm.yaml": CONFIG_MAP,
    "deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-web
spec:
  replicas: 1
  template:
    spec:
      containers: [{name: web, image: "nginx:{{ .Values.tag }}"}]
""",
    "hook.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    "helm.sh/hook": pre-install,pre-upgrade,post-install
    "helm.sh/hook-delete-policy": hook-succeeded
spec:
  template:
    spec:
      containers: [{name: m, image: busybox}]
""",
    "NOTES.txt": "{{ .Release.Name }} says {{ .Values.message }}\n",
}


@pytest.fixture
def fake() -> FakeCluster:
    return FakeCluster()


@pytest.fixture
def driver() -> RecordingDriver:
    return RecordingDriver()


@pytest.fixture
def cfg(fake: FakeCluster, driver: RecordingDriver) -> ActionConfig:
    return ActionConfig(fake, "ns", Storage(driver))


@pytest.fixture
def journal() -> Journal:
    """What the action tells and captures (its messages, hook logs, evidence)."""
    return Journal()


@pytest.fixture
def chart(tmp_path: Path) -> Callable[..., str]:
    """chart(version="1.0.0", templates=None, extra=None, values=...) -> the chart's path."""
    def write(version: str = "1.0.0", templates: dict[str, str] | None = None,
              extra: dict[str, str] | None = None,
              values: str = "message: hello\ntag: \"1.25\"\n", crds: dict[str, str] | None = None) -> str:
        root = tmp_path / f"app-{version}"
        (root / "templates").mkdir(parents=True, exist_ok=True)
        (root / "Chart.yaml").write_text(f"apiVersion: v2\nname: app\nversion: {version}\n")
        (root / "values.yaml").write_text(values)
        for name, text in {**(TEMPLATES if templates is None else templates), **(extra or {})}.items():
            (root / "templates" / name).write_text(text)
        for name, text in (crds or {}).items():
            (root / "crds").mkdir(exist_ok=True)
            (root / "crds" / name).write_text(text)
        return str(root)
    return write
