""".Release.History on rollback (re-rendered, opt-in) and on install over kept records,
over the fake cluster: what templates see, what the records hold, what is written."""

from __future__ import annotations

import pytest

from runner.actions.install import install
from runner.actions.prepare import InstallOptions, UpgradeOptions
from runner.actions.rollback import RollbackOptions, rollback
from runner.actions.template import RenderOptions
from runner.actions.uninstall import UninstallOptions, uninstall
from runner.actions.upgrade import upgrade
from runner.errors import RunnerError
from tests.unit.actions.asking import asked

SEES = {"sees.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-sees
data:
  chart: {{ .Chart.Version | quote }}
  revision: {{ .Release.Revision | quote }}
  upgrade: {{ .Release.IsUpgrade | quote }}
  history: "{{ range .Release.History }}{{ .Revision }}:{{ .Status }}:{{ .Chart.Version }}:{{ .Values.message }} {{ end }}"
  deployed: "{{ with .DeployedChart }}{{ .Version }}{{ end }}"
  message: {{ .Values.message | quote }}
""", "NOTES.txt": "from {{ with .DeployedChart }}{{ .Version }}{{ end }}\n"}


def _sees(manifest: str) -> dict[str, str]:
    import yaml

    docs = [d for d in yaml.safe_load_all(manifest) if d and d["metadata"]["name"].endswith("-sees")]
    return docs[0]["data"]


@pytest.fixture
def two_versions(cfg, journal, chart):
    """app 1.0.0 (message one) superseded by 2.0.0 (message two)."""
    install(cfg, journal, *asked(name="app", chart=chart("1.0.0", SEES), values={"message": "one"}))
    upgrade(cfg, journal, *asked(name="app", chart=chart("2.0.0", SEES), values={"message": "two"}))


def test_without_history_flags_a_rollback_reapplies_the_stored_manifest(cfg, journal, two_versions):
    stored = cfg.storage.get("app", 1)
    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1))
    written = cfg.storage.get("app", 3)
    assert (written.manifest, written.hooks, written.info.notes) == (stored.manifest, stored.hooks,
                                                                     stored.info.notes)
    assert written.info.description == "Rollback to 1"
    assert result.release.manifest == stored.manifest


def test_with_history_a_rollback_rerenders_the_target_with_the_history_before_it(cfg, journal, two_versions):
    rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=5, include_history_values=True)))
    written = cfg.storage.get("app", 3)
    assert _sees(written.manifest) == {
        "chart": "1.0.0", "revision": "3", "upgrade": "true", "message": "one",
        "history": "2:deployed:2.0.0:two 1:superseded:1.0.0:one ", "deployed": "2.0.0",
    }
    assert written.info.notes == "from 2.0.0\n"
    assert written.info.description == "Rollback to 1 (re-rendered with .Release.History)"
    assert written.chart == cfg.storage.get("app", 1).chart  # the stored chart, as stored
    assert written.config == {"message": "one"}
    assert [r.info.status for r in cfg.storage.history("app")] == ["deployed", "superseded", "superseded"]


def test_history_depth_and_values_follow_the_flags(cfg, journal, two_versions):
    rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=1)))
    assert _sees(cfg.storage.get("app", 3).manifest)["history"] == "2:deployed:2.0.0: "


def test_a_server_dry_run_rerenders_and_writes_nothing(cfg, journal, driver, fake, two_versions):
    writes, objects = len(driver.writes), dict(fake.objects)
    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=2), dry_run="server"))
    assert _sees(result.release.manifest)["deployed"] == "2.0.0"
    assert result.dry_run == "server" and "ConfigMap/app-sees" in result.updated
    assert len(driver.writes) == writes and fake.objects == objects


def test_a_client_dry_run_stays_helms(cfg, journal, driver, two_versions):
    writes = len(driver.writes)
    result = rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=2), dry_run="client"))
    assert result.release.manifest == cfg.storage.get("app", 1).manifest
    assert len(driver.writes) == writes


def test_a_release_with_subcharts_cannot_be_rerendered(cfg, journal, chart, tmp_path):
    path = chart("1.0.0", SEES)
    sub = tmp_path / "app-1.0.0" / "charts" / "sub"
    (sub / "templates").mkdir(parents=True)
    (sub / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    (sub / "templates" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sub\n")
    install(cfg, journal, *asked(name="app", chart=path, values={"message": "one"}))
    upgrade(cfg, journal, *asked(name="app", chart=chart("2.0.0", SEES), values={"message": "two"}))
    with pytest.raises(RunnerError, match=r"cannot re-render revision 1 .* had subcharts \(sub\); roll back "
                                          "without --release-history-max"):
        rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=2)))
    assert len(cfg.storage.heads("app")) == 2


def test_a_negative_depth_is_refused(cfg, journal, two_versions):
    with pytest.raises(RunnerError, match="--release-history-max must be 0"):
        rollback(cfg, journal, RollbackOptions(name="app", render=RenderOptions(release_history_max=-1)))


@pytest.mark.parametrize("how", ["install --replace", "upgrade --install"])
def test_an_install_over_kept_records_sees_no_history(cfg, journal, chart, how):
    install(cfg, journal, *asked(name="app", chart=chart("1.0.0", SEES), values={"message": "one"}))
    uninstall(cfg, journal, UninstallOptions(name="app", keep_history=True))
    own = InstallOptions(replace=True) if how == "install --replace" else UpgradeOptions(install=True)
    request, given = asked(name="app", chart=chart("2.0.0", SEES), values={"message": "two"},
                           release_history_max=5, own=own)
    if how == "install --replace":
        install(cfg, journal, request, given)
    else:
        upgrade(cfg, journal, request, given)
    seen = _sees(cfg.storage.get("app", 2).manifest)
    assert (seen["history"], seen["deployed"], seen["revision"]) == ("", "", "1")
