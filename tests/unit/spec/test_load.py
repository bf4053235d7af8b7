"""Specs as users write them: helmfile's documented shapes, deploy-runner's keys, and every
kind of mistake reported as FILE:LINE: FIELD: what, all at once, never a traceback."""

from __future__ import annotations

import os

import pytest

from runner.spec.context import RunContext
from runner.spec.errors import SpecError
from runner.spec.load import json_schema, parse_spec, spec_from_payload, spec_path

CONTEXT = RunContext("default", None, {"sha": lambda: "abc123", "branch": lambda: "main"},
                     {"pr": "a local run is not a pull request"})

# The shape of helmfile's Getting Started example (docs/index.md).
GETTING_STARTED = """\
repositories:
 - name: prometheus-community
   url: https://prometheus-community.github.io/helm-charts

releases:
- name: prom-norbac-ubuntu
  namespace: prometheus
  chart: prometheus-community/prometheus
  set:
  - name: rbac.create
    value: false
"""

# The shape of helmfile's `needs` example (docs/index.md, DAG-aware installation).
DAG = """\
releases:
  - name: myapp1
    chart: charts/myapp
    needs:
    - servicemesh
    - logging
  - name: myapp2
    chart: charts/myapp
    needs:
    - servicemesh
    - logging
  - name: servicemesh
    chart: charts/istio
    needs:
    - logging
  - name: logging
    chart: charts/fluentd
"""


def parse(text: str, name: str = "deploy-runner.yaml", environment: str = "default"):
    context = RunContext(environment, CONTEXT.event, CONTEXT.lookups, CONTEXT.reasons)
    return parse_spec(text, name, "/repo", context=context, default_namespace="ns")


def problems(text: str, **kw) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parse(text, **kw)
    return [line for line in str(caught.value).splitlines() if not line.endswith("problems:")]


def test_helmfiles_getting_started_example_is_a_spec():
    spec = parse(GETTING_STARTED, "helmfile.yaml")
    [release] = spec.releases
    assert (release.name, release.namespace) == ("prom-norbac-ubuntu", "prometheus")
    assert (release.chart.kind, release.chart.ref) == ("repo", "prometheus")
    assert release.chart.repository.url == "https://prometheus-community.github.io/helm-charts"
    assert release.sets == {"set": ["rbac.create=false"]}
    assert spec.warnings == []


def test_helmfiles_needs_example_resolves_needs_to_releases():
    spec = parse(DAG, "helmfile.yaml")
    needs = {r.name: r.needs for r in spec.releases}
    assert needs == {"myapp1": ["ns/servicemesh", "ns/logging"], "myapp2": ["ns/servicemesh", "ns/logging"],
                     "servicemesh": ["ns/logging"], "logging": []}
    assert spec.releases[0].chart.ref == os.path.normpath("/repo/charts/myapp")


def test_every_kind_of_mistake_is_reported_at_once_with_its_line():
    text = """\
releases:
- name: api
  chart: ./api
  applyMethod: server
  timout: 5m
  historyDepth: many
  namespace: ${nope}
- name: web
  chart: ./web
"""
    assert problems(text) == [
        "deploy-runner.yaml:4: releases[0].applyMethod: must be one of ssa, csa, auto",
        "deploy-runner.yaml:5: releases[0].timout: unknown key (did you mean timeout?)",
        "deploy-runner.yaml:6: releases[0].historyDepth: must be an integer",
        "deploy-runner.yaml:7: releases[0].namespace: unknown variable ${nope}: the variables are "
        "${sha}, ${ref}, ${branch}, ${pr}, ${actor}, ${repository}, ${environment}, ${run_id}",
    ]


def test_yaml_syntax_errors_name_the_line():
    assert problems("releases:\n- name: a\n  chart: [unclosed\n") == [
        "deploy-runner.yaml:4: yaml: did not find expected ',' or ']' (while parsing a flow sequence)"]
    assert problems("releases:\n- name: a\n  name: b\n") == [
        'deploy-runner.yaml:3: releases[0].name: mapping key "name" already defined at line 2']


def test_a_needs_cycle_and_an_unknown_need_are_spec_errors():
    cycle = "releases:\n- {name: a, chart: ./a, needs: [b]}\n- {name: b, chart: ./b, needs: [a]}\n"
    assert problems(cycle) == ["deploy-runner.yaml:2: releases[0].needs: a needs cycle: a needs b needs a"]
    unknown = "releases:\n- name: a\n  chart: ./a\n  needs:\n  - other/b\n"
    assert problems(unknown) == ['deploy-runner.yaml:5: releases[0].needs[0]: "other/b" is not a release '
                                 "of this spec"]


def test_a_variable_without_a_value_says_why():
    assert problems("releases:\n- {name: 'pr-${pr}', chart: ./a}\n") == [
        "deploy-runner.yaml:2: releases[0].name: ${pr} has no value in this run: a local run is not a "
        "pull request"]


def test_variables_substitute_into_parsed_strings_only():
    spec = parse("releases:\n- name: a\n  chart: ./a\n  labels: {commit: '${sha}', note: '$${sha} is kept'}\n")
    assert spec.releases[0].labels == {"commit": "abc123", "note": "${sha} is kept"}
    evil = RunContext("default", "push", {"branch": lambda: "x\nreleases: []\n  chart: /etc"}, {})
    spec = parse_spec("releases:\n- name: a\n  chart: ./a\n  description: ${branch}\n", "f.yaml", "/r",
                      context=evil)
    assert spec.releases[0].description == "x\nreleases: []\n  chart: /etc"  # a string, not structure
    assert len(spec.releases) == 1


def test_preview_blocks_keep_their_variables_for_the_preview():
    spec = parse("releases:\n- name: a\n  chart: ./a\n  preview: {enabled: true, namespace: 'pr-${pr}'}\n")
    assert spec.releases[0].preview.namespace == "pr-${pr}"


def test_a_string_field_given_a_number_takes_its_text():
    spec = parse("releases:\n- {name: a, chart: ./a, version: 1.10, labels: {tier: 3}}\n")
    assert (spec.releases[0].chart.version, spec.releases[0].labels) == ("1.10", {"tier": "3"})


def test_helmfile_keys_deploy_runner_cannot_honour_are_refused_and_others_ignored_with_a_warning():
    assert problems("releases:\n- name: a\n  chart: ./a\n  secrets: [s.yaml]\n") == [
        "deploy-runner.yaml:4: releases[0].secrets: helmfile's secrets is not supported by deploy-runner "
        "(it decrypts with helm-secrets; list plain files in secretValues)"]
    spec = parse("helmDefaults:\n  skipDeps: true\nreleases:\n- {name: a, chart: ./a, suppressDiff: true}\n")
    assert spec.warnings == [
        "deploy-runner.yaml:2: helmDefaults.skipDeps: helmfile's skipDeps is ignored by deploy-runner",
        "deploy-runner.yaml:4: releases[0].suppressDiff: helmfile's suppressDiff is ignored by deploy-runner"]


def test_settings_come_from_the_release_then_defaults_then_helm_defaults():
    text = """\
helmDefaults: {wait: true, timeout: 600, historyMax: 3, atomic: true}
defaults: {historyDepth: 2, applyMethod: csa, timeout: 2m}
releases:
- {name: a, chart: ./a}
- {name: b, chart: ./b, applyMethod: ssa, wait: legacy, createNamespace: false}
"""
    a, b = parse(text).releases
    assert (a.wait, a.timeout, a.history_max, a.rollback_on_failure, a.history_depth, a.apply_method) == (
        "watcher", 120.0, 3, True, 2, "csa")
    assert (b.apply_method, b.wait, b.create_namespace, a.create_namespace) == ("ssa", "legacy", False, True)


def test_environments_add_values_and_override_releases():
    text = """\
environments:
  default: {}
  production:
    values: [env/prod.yaml, {tier: prod}]
    releases:
      a: {namespace: prod, values: [{replicas: 3}], historyDepth: 5}
releases:
- name: a
  chart: ./a
  values: [a.yaml, {x: 1}]
"""
    [default] = parse(text).releases
    assert ([v.file or v.inline for v in default.values], default.namespace) == (["/repo/a.yaml", {"x": 1}], "ns")
    [prod] = parse(text, environment="production").releases
    assert [v.file or v.inline for v in prod.values] == [
        "/repo/env/prod.yaml", {"tier": "prod"}, "/repo/a.yaml", {"x": 1}, {"replicas": 3}]
    assert (prod.namespace, prod.history_depth) == ("prod", 5)
    assert problems(text, environment="staging") == [
        'deploy-runner.yaml:1: environments: environment "staging" is not defined (defined: default, production)']


@pytest.mark.parametrize("text", [
    "\x00\x01", "releases: *nowhere", "[" * 20000, "a: !!binary x", "- 1\n- 2\n", "releases: 5",
    "releases:\n- 3\n", "{" * 5 + "}" * 5, "releases:\n- {name: a, chart: ./a, labels: [1]}\n",
    "x: &a [*a]", "releases:\n- name: a\n  chart: ./a\n  <<: 5\n",
])
def test_hostile_input_is_a_spec_error_never_a_traceback(text):
    with pytest.raises(SpecError) as caught:
        parse(text)
    assert str(caught.value).startswith("deploy-runner.yaml")


def test_an_alias_bomb_stops_at_a_budget():
    bomb = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    with pytest.raises(SpecError, match="too many values"):
        parse(bomb)


def test_a_spec_in_an_event_payload_uses_the_same_models():
    spec = spec_from_payload({"releases": [{"name": "a", "chart": "./a", "applyMethod": "ssa"}]},
                             context=CONTEXT, base_dir="/work")
    assert spec.releases[0].apply_method == "ssa"
    with pytest.raises(SpecError) as caught:
        spec_from_payload({"releases": [{"name": "a", "chart": "./a", "applyMethod": "x"}]}, context=CONTEXT)
    assert str(caught.value) == "event payload: releases[0].applyMethod: must be one of ssa, csa, auto"
    text = spec_from_payload("releases:\n- {name: a, chart: ./a}\n", context=CONTEXT,
                             source="workflow_dispatch input spec")
    assert text.releases[0].name == "a"


def test_the_json_schema_accepts_what_the_models_accept_and_refuses_the_rest():
    import jsonschema

    schema = json_schema()
    validator = jsonschema.Draft202012Validator(schema)
    import yaml

    for text in (GETTING_STARTED, DAG):
        assert list(validator.iter_errors(yaml.safe_load(text))) == []
    bad = {"releases": [{"name": "a", "chart": "./a", "applyMethod": "x", "bogus": 1}]}
    assert len(list(validator.iter_errors(bad))) == 2
    assert {"historyDepth", "applyMethod", "secretValues", "hookLogs", "when", "preview"} <= set(
        schema["$defs"]["Release"]["properties"])


def test_the_default_spec_is_found_at_the_repository_root_from_a_subdirectory(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "deploy-runner.yaml").write_text("releases: []\n")
    sub = tmp_path / "charts" / "api"
    sub.mkdir(parents=True)

    assert spec_path(cwd=str(sub)) == os.path.join("..", "..", "deploy-runner.yaml")
    assert spec_path(cwd=str(tmp_path)) == "deploy-runner.yaml"
    (sub / "deploy-runner.yaml").write_text("releases: []\n")  # one here wins
    assert spec_path(cwd=str(sub)) == "deploy-runner.yaml"
    assert spec_path("other.yaml", cwd=str(tmp_path / "charts")) == "other.yaml"  # named: as given


def test_without_a_repository_the_default_spec_stays_where_it_was_asked_for(tmp_path):
    assert spec_path(cwd=str(tmp_path)) == "deploy-runner.yaml"


EKS_SPEC = """\
environments:
  production:
    eks:
      cluster: prod-${environment}
      region: eu-west-1
      roleArn: arn:aws:iam::1:role/deployer
  staging: {}
releases:
- name: web
  chart: ./web
"""


def test_an_environment_names_its_eks_cluster():
    from runner.kube.kubeconfig import ClusterAccess

    production = parse(EKS_SPEC, environment="production")
    assert (production.eks.cluster, production.eks.region, production.eks.role_arn) == (
        "prod-production", "eu-west-1", "arn:aws:iam::1:role/deployer")
    access = production.cluster_access(ClusterAccess(namespace="ns"))
    assert (access.eks_cluster, access.eks_region, access.eks_role_arn, access.namespace) == (
        "prod-production", "eu-west-1", "arn:aws:iam::1:role/deployer", "ns")
    given = ClusterAccess(context="kind")  # the command line names its cluster: it wins
    assert production.cluster_access(given) == given
    staging = parse(EKS_SPEC, environment="staging")
    assert staging.eks is None and staging.cluster_access(given) == given


def test_the_default_namespace_is_decided_with_the_environments_cluster():
    seen = []

    def namespace_for(eks):
        seen.append(eks.cluster if eks else None)
        return "on-eks" if eks else "from-context"

    for environment, expected in (("production", "on-eks"), ("staging", "from-context")):
        context = RunContext(environment, CONTEXT.event, CONTEXT.lookups, CONTEXT.reasons)
        spec = parse_spec(EKS_SPEC, "deploy-runner.yaml", "/repo", context=context, default_namespace=namespace_for)
        assert spec.releases[0].namespace == expected
    assert seen == ["prod-production", None]


def test_an_eks_key_is_checked_as_every_key_is():
    assert problems("environments:\n  p:\n    eks: {region: eu-west-1, rolearn: x}\n", environment="p") == [
        "deploy-runner.yaml:3: environments.p.eks.cluster: is required",
        "deploy-runner.yaml:3: environments.p.eks.rolearn: unknown key (did you mean roleArn?)"]
    schema = json_schema()
    assert set(schema["$defs"]["Eks"]["properties"]) == {"cluster", "region", "roleArn"}
    assert schema["$defs"]["Environment"]["properties"]["eks"]
