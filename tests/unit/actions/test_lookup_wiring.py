"""Where `lookup` reaches the cluster and where it is an empty map, as in Helm: every
action that renders against a cluster (install, upgrade, rollback's re-render, server
dry runs, the plans of `run` and `diff`) passes the cluster's lookup to the engine;
`template`, --dry-run=client and lint render without one. Over the fake cluster; the
semantics of lookup itself are tests/unit/kube/test_lookup.py and, against helm 4.1.4,
tests/e2e/test_lookup.py."""

from __future__ import annotations

import io

import pytest

from runner.actions.diff import plan_release
from runner.actions.install import install
from runner.actions.rollback import RollbackOptions, rollback
from runner.actions.template import RenderOptions, TemplateOptions, render_template
from runner.actions.upgrade import upgrade
from runner.engine import Engine
from runner.errors import RunnerError
from runner.golang.gofunc import FuncError
from tests.unit.actions.asking import asked

# The Bitnami way: a password generated at the first install, read back afterwards.
PASSWORD = {"secret.yaml": """{{- $old := lookup "v1" "Secret" .Release.Namespace "app-auth" }}
apiVersion: v1
kind: Secret
metadata:
  name: app-auth
data:
  password: {{ if $old }}{{ index $old.data "password" }}{{ else }}{{ randAlphaNum 12 | b64enc }}{{ end }}
""", "cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: app-seen
data:
  found: {{ ternary "yes" "no" (not (empty (lookup "v1" "Secret" .Release.Namespace "app-auth"))) | quote }}
  outside: {{ (lookup "v1" "ConfigMap" "elsewhere" "shared").data | toJson | quote }}
"""}


def _password(cfg, journal, revision: int) -> str:
    manifest = cfg.storage.get("app", revision).manifest
    return next(line.split(":", 1)[1].strip() for line in manifest.splitlines() if "password:" in line)


def _seen(manifest: str) -> tuple[str, str]:
    lines = dict(line.strip().split(": ", 1) for line in manifest.splitlines() if line.startswith("  ") and ": " in line)
    return lines["found"], lines["outside"]


@pytest.fixture
def shared(fake):
    fake.put({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"}, "data": {"a": "1"}},
             namespace="elsewhere")


def test_install_and_upgrade_read_the_cluster_so_a_generated_password_is_kept(cfg, journal, chart, shared):
    path = chart(templates=PASSWORD)
    install(cfg, journal, *asked(name="app", chart=path))
    assert _seen(cfg.storage.get("app", 1).manifest) == ('"no"', '"{\\"a\\":\\"1\\"}"')
    upgrade(cfg, journal, *asked(name="app", chart=path))
    upgrade(cfg, journal, *asked(name="app", chart=path))
    assert _password(cfg, journal, 1) == _password(cfg, journal, 2) == _password(cfg, journal, 3)
    assert _seen(cfg.storage.get("app", 3).manifest)[0] == '"yes"'


def test_a_rollback_that_rerenders_reads_the_cluster(cfg, journal, chart, shared):
    path = chart(templates=PASSWORD)
    install(cfg, journal, *asked(name="app", chart=path))
    upgrade(cfg, journal, *asked(name="app", chart=path))
    rollback(cfg, journal, RollbackOptions(name="app", revision=1, render=RenderOptions(release_history_max=1)))
    assert _password(cfg, journal, 3) == _password(cfg, journal, 1)


def test_a_server_dry_run_reads_the_cluster_and_a_client_one_sees_empty_maps(cfg, journal, chart, shared):
    path = chart(templates=PASSWORD)
    server = install(cfg, journal, *asked(name="app", chart=path, dry_run="server"))
    client = install(cfg, journal, *asked(name="app", chart=path, dry_run="client"))
    assert _seen(server.release.manifest) == ('"no"', '"{\\"a\\":\\"1\\"}"')
    assert _seen(client.release.manifest) == ('"no"', '"null"')


def test_the_plan_of_run_and_diff_reads_the_cluster_so_nothing_changes(cfg, journal, chart, shared):
    path = chart(templates={"secret.yaml": PASSWORD["secret.yaml"]})
    install(cfg, journal, *asked(name="app", chart=path))
    plan = plan_release(cfg, journal, *asked(name="app", chart=path))
    assert plan.diff.changes == []


def test_template_has_no_cluster_so_lookup_is_an_empty_map(chart):
    out = render_template(TemplateOptions(chart=chart(templates=PASSWORD), release_name="app", namespace="ns"),
                          on_warning=lambda _: None, out=io.StringIO()).text
    assert _seen(out) == ('"no"', '"null"')


def test_a_refused_lookup_is_helms_template_error():
    def refuse(*_: str) -> dict:
        raise RunnerError('secrets is forbidden: User "nobody" cannot list resource "secrets"')

    engine = Engine(lookup=refuse)
    with pytest.raises(FuncError, match='^secrets is forbidden: User "nobody"'):
        engine._lookup_fn("v1", "Secret", "ns", "")
    assert Engine(lookup=refuse, lint_mode=True)._lookup_fn("v1", "Secret", "ns", "") == {}
