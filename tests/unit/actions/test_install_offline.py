"""install --dry-run=client needs no cluster: the record as Helm's dry run shows it."""

from __future__ import annotations

from pathlib import Path

from runner.actions.install import install
from runner.actions.release_config import ActionConfig
from runner.release.storage import MemoryDriver, Storage
from tests.unit.actions.asking import asked


def _chart(root: Path) -> Path:
    chart = root / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 1.2.3\n")
    (chart / "values.yaml").write_text("n: 1\n")
    (chart / "templates" / "cm.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
        "data:\n  history: {{ len .Release.History | quote }}\n  n: {{ .Values.n | quote }}\n")
    (chart / "templates" / "NOTES.txt").write_text("hi {{ .Release.Name }}\n")
    return chart


def test_client_dry_run_renders_offline_with_empty_history(tmp_path, journal):
    cfg = ActionConfig(None, "ns", Storage(MemoryDriver()))
    result = install(cfg, journal, *asked(name="app", chart=str(_chart(tmp_path)), values={"n": 2},
                                        dry_run="client", release_history_max=5))
    release = result.release
    assert (release.info.status, release.info.description) == ("pending-install", "Dry run complete")
    assert release.manifest == ("---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\n"
                                "metadata:\n  name: app\ndata:\n  history: \"0\"\n  n: \"2\"\n")
    assert release.info.notes == "hi app\n"
    assert release.apply_method == "ssa" and release.config == {"n": 2}
    assert release.chart["metadata"] == {"name": "c", "version": "1.2.3", "apiVersion": "v2"}
    assert cfg.storage.heads("app") == []  # nothing stored
