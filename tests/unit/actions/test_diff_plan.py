"""A release's plan over the fake cluster: what changes, in helm-diff's order, from which
template line; nothing written."""

from __future__ import annotations

from runner.actions.diff import INSTALL, UNINSTALL, UPGRADE, DiffOptions, plan_release
from runner.actions.install import install
from runner.diff.model import ADD, LIVE, MANIFEST, MODIFY, REMOVE
from tests.unit.actions.asking import asked


def _install(cfg, journal, chart, **values):
    install(cfg, journal, *asked(name="app", chart=chart, values=values))


def test_a_new_release_is_all_additions_in_key_order(cfg, journal, chart, driver):
    plan = plan_release(cfg, journal, *asked(name="app", chart=chart()))
    assert plan.action == INSTALL and plan.revision == 1
    assert [(c.change, c.key) for c in plan.diff.changes] == [
        (ADD, "ns, app-cm, ConfigMap (v1)"), (ADD, "ns, app-migrate, Job (batch)"),
        (ADD, "ns, app-web, Deployment (apps)")]
    assert driver.heads("app") == []  # nothing stored


def test_a_values_change_shows_only_the_changed_object_and_its_template_line(cfg, journal, chart, fake):
    path = chart()
    _install(cfg, journal, path)
    plan = plan_release(cfg, journal, *asked(name="app", chart=path, values={"message": "bye"}))
    assert plan.action == UPGRADE and plan.values_changed and not plan.chart_changed
    assert plan.diff.view == LIVE
    [change] = plan.diff.changes
    assert (change.change, change.ref) == (MODIFY, "ConfigMap/app-cm")
    assert "-  message: hello\n+  message: bye\n" in change.diff
    assert change.source is not None and change.source.path == "app/templates/cm.yaml"
    assert [(s.path, s.line) for s in change.changed_lines] == [("app/templates/cm.yaml", 6)]
    assert fake.get("ConfigMap", "app-cm")["data"]["message"] == "hello"


def test_an_unchanged_release_is_unchanged(cfg, journal, chart):
    path = chart()
    _install(cfg, journal, path)
    plan = plan_release(cfg, journal, *asked(name="app", chart=path))
    assert plan.unchanged and plan.diff.empty


def test_a_dropped_template_is_a_removal_and_a_hand_edit_shows(cfg, journal, chart, fake):
    _install(cfg, journal, chart())
    fake.objects[next(p for p in fake.objects if p.endswith("/app-web"))]["spec"]["replicas"] = 3
    templates = {"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: "
                 "{{ .Release.Name }}-web\nspec:\n  replicas: 1\n  template:\n    spec:\n      "
                 "containers: [{name: web, image: \"nginx:{{ .Values.tag }}\"}]\n"}
    plan = plan_release(cfg, journal, *asked(name="app", chart=chart("1.0.1", templates=templates)))
    assert [(c.change, c.ref) for c in plan.diff.changes] == [
        (MODIFY, "Deployment/app-web"), (REMOVE, "ConfigMap/app-cm"), (REMOVE, "Job/app-migrate")]
    assert "-  replicas: 3\n+  replicas: 1\n" in plan.diff.changes[0].diff
    manifest = plan_release(cfg, journal, *asked(name="app", chart=chart("1.0.1", templates=templates)),
                            options=DiffOptions(view=MANIFEST))
    # The stored manifest knows nothing of the hand edit.
    assert [c.ref for c in manifest.diff.changes] == ["ConfigMap/app-cm", "Job/app-migrate"]


def test_secret_values_never_show(cfg, journal, chart):
    secret = ("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\ndata:\n  a: {{ .Values.a | b64enc }}\n"
              "stringData:\n  b: {{ .Values.b }}\n  c: same\n")
    path = chart(templates={"s.yaml": secret}, values="a: canary-1\nb: canary-2\n")
    _install(cfg, journal, path)
    plan = plan_release(cfg, journal, *asked(name="app", chart=path, values={"a": "canary-3", "b": "canary-2"}))
    [change] = plan.diff.changes
    assert change.secret_keys is not None
    assert (change.secret_keys.added, change.secret_keys.changed, change.secret_keys.removed) == ([], ["a"], [])
    assert "canary" not in change.diff and "Y2FuYXJ5" not in change.diff
    assert "-  a: '(hidden: old value)'\n+  a: '(hidden: new value)'\n" in change.diff


def test_not_installed_plans_the_uninstall(cfg, journal, chart):
    _install(cfg, journal, chart())
    plan = plan_release(cfg, journal, *asked(name="app", chart=chart()), installed=False)
    assert plan.action == UNINSTALL
    assert {c.change for c in plan.diff.changes} == {REMOVE}


def test_when_the_live_view_cannot_be_taken_the_stored_manifest_is_compared(cfg, journal, chart, fake, monkeypatch):
    from runner.kube.client import KubeError

    path = chart()
    _install(cfg, journal, path)

    def refused(*args, **kw):
        raise KubeError('configmaps "app-cm" is forbidden: User "ci" cannot patch resource', 403)

    monkeypatch.setattr(fake, "preview", refused)
    plan = plan_release(cfg, journal, *asked(name="app", chart=path, values={"message": "bye"}))
    assert plan.diff.view == MANIFEST and "forbidden" in plan.diff.live_unavailable
    assert [c.ref for c in plan.diff.changes] == ["ConfigMap/app-cm"]


def test_a_document_read_by_the_go_yaml_composer_still_points_at_its_lines(cfg, journal, chart):
    """A `! ` in a block scalar (bitnami-nginx's `if ! is_dir_empty ...`) sends the rendered
    document through the event composer: its changed fields still name their template lines."""
    script = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-cm\ndata:\n"
                         "  script: |\n    if ! true; then exit 1; fi\n"
                         "  message: {{ .Values.message | quote }}\n"}
    path = chart(templates=script)
    _install(cfg, journal, path)
    plan = plan_release(cfg, journal, *asked(name="app", chart=path, values={"message": "bye"}))
    [change] = plan.diff.changes
    assert [(s.path, s.line) for s in change.changed_lines] == [("app/templates/cm.yaml", 8)]


def test_a_field_without_a_position_falls_back_to_the_objects_first_line():
    from yaml.nodes import MappingNode, ScalarNode

    from runner.diff.compute import _line_of

    marked = ScalarNode("?", "data", start_mark=type("Mark", (), {"line": 4})())
    unmarked = MappingNode("", [(ScalarNode("?", "message"), ScalarNode("?", "x"))])
    root = MappingNode("", [(ScalarNode("?", "kind"), ScalarNode("?", "ConfigMap")), (marked, unmarked)])
    assert _line_of(root, ("data", "message")) == 5  # the deepest line known: `data:`
    assert _line_of(root, ("kind",)) == 1  # nothing known: the object's first line
    assert _line_of(root, ()) == 0
