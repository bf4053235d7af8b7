"""`deploy-runner lint` against Helm 4.1.4's `helm lint`: stdout, stderr and exit code.

Every corpus chart (with its _values file where present) is linted plain,
with --strict, with --with-subcharts, with --kube-version 1.21.0 --quiet and
with a --set toggle; then a set of small broken charts written here to a scratch
directory (bad Chart.yaml fields, invalid versions, missing names, bad YAML,
template errors, schema violations, deprecated APIs, bad object names,
missing dependencies, archives, --with-subcharts, --quiet, values flags).
Helm lints every case in the run; nothing expected is stored. Entries of
lint_known_differences.txt still differ today: for them the test asserts they
STILL differ, so a fix is noticed and the list shrinks.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import tarfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from testbed.helm import helm_binary
from tests.conformance.harness import CHARTS_DIR, VALUES_DIR, Run, chart_names

KNOWN_DIFFERENCES_FILE = Path(__file__).parent / "lint_known_differences.txt"
GOOD_CHART = "apiVersion: v2\nname: {name}\nversion: 0.1.0\nicon: https://example.com/icon.png\n"
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  a: b\n"


@dataclass(frozen=True)
class Case:
    """A scratch chart (relative path -> text) and the lint flags to run with."""

    name: str
    files: dict[str, str]
    flags: tuple[str, ...] = ()
    archive: bool = False  # lint the chart as NAME-0.1.0.tgz
    targets: tuple[str, ...] = field(default=())  # paths under the case directory to lint instead


def _chart(name: str, chart_yaml: str | None = None, **files: str) -> dict[str, str]:
    out = {"Chart.yaml": chart_yaml if chart_yaml is not None else GOOD_CHART.format(name=name),
           "values.yaml": "replicas: 1\n"}
    out.update({path.replace("__", "/").replace("_DOT_", "."): text for path, text in files.items()})
    return {k: v for k, v in out.items() if v is not None}


def _templates(**named: str) -> dict[str, str]:
    return {f"templates/{name.replace('_DOT_', '.')}": text for name, text in named.items()}


def _case(name: str, chart_yaml: str | None = None, templates: dict[str, str] | None = None,
          flags: tuple[str, ...] = (), **files: str) -> Case:
    body = _chart(name, chart_yaml, **files)
    body.update(templates if templates is not None else {"templates/cm.yaml": CONFIGMAP})
    return Case(name, body, flags)


def _dep_chart(name: str, extra_md: str = "") -> str:
    return GOOD_CHART.format(name=name) + extra_md


def cases() -> list[Case]:
    md_deps = "dependencies:\n- name: sub\n  version: 0.1.0\n  repository: file://charts/sub\n"
    return [
        _case("good"),
        _case("missing-notes"),  # helm lint does not ask for templates/NOTES.txt
        _case("icon-missing", "apiVersion: v2\nname: icon-missing\nversion: 0.1.0\n"),
        _case("bad-fields", "apiVersion: v1\nname: bad-fields\nversion: 0.1.0\ntype: application\n"
              "icon: not a url\nsources:\n- ''\nmaintainers:\n- name: a\n  email: nope\n"),
        _case("bad-maintainer-url", GOOD_CHART.format(name="bad-maintainer-url")
              + "maintainers:\n- name: a\n  url: 'ht tp://x'\n"),
        _case("maintainer-no-name", GOOD_CHART.format(name="maintainer-no-name")
              + "maintainers:\n- email: a@example.com\n"),
        _case("bad-source", GOOD_CHART.format(name="bad-source") + "sources:\n- foo\n"),
        _case("invalid-version", "apiVersion: v2\nname: invalid-version\nversion: one.two\n"
              "icon: https://example.com/i.png\n"),
        _case("version-v-prefix", "apiVersion: v2\nname: version-v-prefix\nversion: v1.2.3\n"
              "icon: https://example.com/i.png\n"),
        _case("version-number", "apiVersion: v2\nname: version-number\nversion: 1.0\n"
              "appVersion: 2\nicon: https://example.com/i.png\n"),
        _case("missing-version", "apiVersion: v2\nname: missing-version\n"),
        # SemVerV2 is Masterminds' StrictNewVersion: numbers within uint64, nothing after them
        *(_case(f"strict-semver-{i}", f"apiVersion: v2\nname: strict-semver-{i}\nversion: {version}\n"
                "icon: https://example.com/i.png\n")
          for i, version in enumerate((
              '"99999999999999999999.0.0"', '"18446744073709551616.0.0"', '"18446744073709551615.0.0"',
              '"1.0.0\\n"', "|\n  1.0.0-rc.1\n", "1.0.0-01", "1.2.3-0a", "1.0.0+build.01",
              '"1.0.0+"', "1.0.0-a..b", '"1.0.0.0"', '"\uff11.0.0"'))),
        _case("missing-name", "apiVersion: v2\nversion: 0.1.0\n"),
        _case("missing-api-version", "name: missing-api-version\nversion: 0.1.0\n"),
        _case("bad-api-version", "apiVersion: v3\nname: bad-api-version\nversion: 0.1.0\n"),
        _case("UpperName", "apiVersion: v2\nname: UpperName\nversion: 0.1.0\n"),
        _case("name-with-slash", "apiVersion: v2\nname: a/b\nversion: 0.1.0\n"),
        _case("unknown-field", GOOD_CHART.format(name="unknown-field") + "colour: blue\n"),
        _case("chart-yaml-broken", "apiVersion: v2\nname: [unclosed\n"),
        _case("chart-yaml-list", "- a\n- b\n"),
        Case("no-values", {"Chart.yaml": GOOD_CHART.format(name="no-values"),
                           "templates/cm.yaml": CONFIGMAP}),
        _case("bad-values-yaml", values_DOT_yaml="a: [1\n"),
        _case("no-templates", templates={}),
        _case("bad-yaml-template", templates=_templates(
            cm_DOT_yaml="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: [b\n")),
        _case("bad-yaml-second-doc", templates=_templates(
            cm_DOT_yaml=CONFIGMAP + "---\nkind: x\n\tfoo: bar\n")),
        _case("template-parse-error", templates=_templates(cm_DOT_yaml="a: {{ .Values.x \n")),
        _case("template-exec-error", templates=_templates(
            cm_DOT_yaml="a: {{ .Values.missing.deeper }}\n")),
        _case("template-required-fail", templates=_templates(
            cm_DOT_yaml=CONFIGMAP + "  r: {{ required \"need r\" .Values.r | quote }}\n"
            "  f: {{ fail \"boom\" | quote }}\n")),
        _case("schema-violation", values_DOT_schema_DOT_json=(
            '{"type": "object", "properties": {"replicas": {"type": "string"}},'
            ' "required": ["image"]}')),
        _case("schema-with-set", values_DOT_schema_DOT_json=(
            '{"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 5}}}'),
            flags=("--set", "replicas=2")),
        _case("schema-skip", values_DOT_schema_DOT_json=(
            '{"type": "object", "properties": {"replicas": {"type": "string"}}}'),
            flags=("--skip-schema-validation",)),
        _case("deprecated-apis", templates=_templates(
            pdb_DOT_yaml="apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n  name: p\n",
            ing_DOT_yaml="apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: i\n",
            crd_DOT_yaml="apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n"
            "metadata:\n  name: c\n",
            dc_DOT_yaml="apiVersion: resource.k8s.io/v1beta1\nkind: DeviceClass\nmetadata:\n  name: d\n")),
        _case("deprecated-kube-version", templates=_templates(
            hpa_DOT_yaml="apiVersion: autoscaling/v2beta2\nkind: HorizontalPodAutoscaler\n"
            "metadata:\n  name: h\n"), flags=("--kube-version", "1.22.0")),
        _case("deprecated-strict", templates=_templates(
            cj_DOT_yaml="apiVersion: batch/v1beta1\nkind: CronJob\nmetadata:\n  name: c\n"),
            flags=("--strict",)),
        _case("with-notes", templates=_templates(
            cm_DOT_yaml=CONFIGMAP, NOTES_DOT_txt="Thanks for installing {{ .Chart.Name }}\n")),
        _case("bad-metadata-names", templates=_templates(
            svc_DOT_yaml="apiVersion: v1\nkind: Service\nmetadata:\n  name: 1bad.svc\n",
            cm_DOT_yaml="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n",
            ns_DOT_yaml="apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns.dotted\n",
            role_DOT_yaml="apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n"
            "  name: a/b\n",
            sa_DOT_yaml="apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: " + "x" * 260 + "\n")),
        _case("top-indent", templates=_templates(cm_DOT_yaml="\n  " + CONFIGMAP.replace("\n", "\n  "))),
        _case("bad-extension", templates={"templates/cm.yaml": CONFIGMAP,
                                          "templates/extra.json": "{}\n"}),
        _case("no-selector", templates=_templates(
            dep_DOT_yaml="apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n"
            "  replicas: 1\n")),
        _case("list-policy", templates=_templates(
            list_DOT_yaml="apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
            "  metadata:\n    name: a\n    annotations:\n      helm.sh/resource-policy: keep\n")),
        _case("kind-number", templates=_templates(
            cm_DOT_yaml="apiVersion: v1\nkind: 12\nmetadata:\n  name: x\n")),
        _case("json-template", templates=_templates(
            cm_DOT_yaml='{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "UP"}}\n')),
        _case("crds-bad", crds__bad_DOT_yaml="apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
              crds__good_DOT_yaml="apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
              "metadata:\n  name: a.b.c\n"),
        _case("crds-template", crds__t_DOT_yaml="a: {{ .Values.x }}\n"),
        Case("dependency-missing", _chart("dependency-missing", _dep_chart("dependency-missing", md_deps))
             | {"templates/cm.yaml": CONFIGMAP}),
        Case("dependency-not-in-metadata", _chart("dependency-not-in-metadata")
             | {"templates/cm.yaml": CONFIGMAP, "charts/sub/Chart.yaml": _dep_chart("sub"),
                "charts/sub/templates/cm.yaml": CONFIGMAP.replace("-cm", "-sub")}),
        Case("dependency-duplicate", _chart("dependency-duplicate", _dep_chart(
            "dependency-duplicate", md_deps + "- name: sub\n  version: 0.1.0\n"))
             | {"templates/cm.yaml": CONFIGMAP, "charts/sub/Chart.yaml": _dep_chart("sub"),
                "charts/sub/templates/cm.yaml": CONFIGMAP.replace("-cm", "-sub")}),
        Case("with-subcharts", _chart("with-subcharts", _dep_chart("with-subcharts", md_deps))
             | {"templates/cm.yaml": CONFIGMAP,
                "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
                "charts/sub/templates/cm.yaml": "a: [\n"}, ("--with-subcharts",)),
        Case("quiet-clean", _chart("quiet-clean") | {"templates/cm.yaml": CONFIGMAP}, ("--quiet",)),
        Case("quiet-info", _chart("quiet-info", "apiVersion: v2\nname: quiet-info\nversion: 0.1.0\n")
             | {"templates/cm.yaml": CONFIGMAP}, ("--quiet",)),
        Case("quiet-warning", _chart("quiet-warning", "apiVersion: v2\nname: quiet-warning\n"
                                     "version: v0.1.0\n") | {"templates/cm.yaml": CONFIGMAP}, ("--quiet",)),
        Case("archive", _chart("archive", "apiVersion: v2\nname: archive\nversion: 0.1.0\n")
             | {"templates/cm.yaml": CONFIGMAP}, archive=True),
        Case("values-flags", _chart("values-flags") | {
            "templates/cm.yaml": CONFIGMAP + "  r: {{ .Values.r | quote }}\n",
            "values.schema.json": '{"properties": {"r": {"type": "integer"}}}'},
            ("--set", "r=abc", "--namespace", "other")),
        *_more_cases(),
    ]


def _more_cases() -> list[Case]:
    plain = {"Chart.yaml": "apiVersion: v2\nname: {n}\nversion: 0.1.0\n", "templates/cm.yaml": CONFIGMAP}

    def chart(name: str, **files: str) -> dict[str, str]:
        out = {k.format(n=name): v.format(n=name) if k == "Chart.yaml" else v for k, v in plain.items()}
        out.update({k.replace("__", "/").replace("_DOT_", "."): v for k, v in files.items()})
        return out

    def nested(prefix: str, files: dict[str, str]) -> dict[str, str]:
        return {f"{prefix}/{k}": v for k, v in files.items()}

    two = nested("good", chart("good")) | nested("warn", chart("warn", templates__x_DOT_yaml="  a: 1\n"))
    return [
        Case("multiple-paths", two, targets=("good", "warn", "missing")),
        Case("multiple-paths-strict", two, ("--strict",), targets=("good", "warn")),
        Case("multiple-paths-quiet", two, ("--quiet",), targets=("good", "warn", "missing")),
        Case("no-chart-yaml", {"values.yaml": "a: 1\n"}),
        Case("kube-version-constraint", chart("kube-version-constraint")
             | {"Chart.yaml": "apiVersion: v2\nname: kube-version-constraint\nversion: 0.1.0\n"
                              "kubeVersion: '<1.20'\n"}),
        Case("library-chart", chart("library-chart") | {
            "Chart.yaml": "apiVersion: v2\nname: library-chart\nversion: 0.1.0\ntype: library\n",
            "templates/_helpers.tpl": '{{- define "x" }}a{{ end }}\n'}),
        Case("templates-is-file", {"Chart.yaml": "apiVersion: v2\nname: templates-is-file\nversion: 0.1.0\n",
                                   "templates": ""}),
        Case("values-not-a-map", chart("values-not-a-map", values_DOT_yaml="- a\n")),
        Case("invalid-kube-version", chart("invalid-kube-version"), ("--kube-version", "foo")),
        Case("missing-values-file", chart("missing-values-file"), ("-f", "/nonexistent/values.yaml")),
        Case("bad-set", chart("bad-set"), ("--set", "a")),
        Case("strict-error-and-warning", chart("strict-error-and-warning", templates__x_DOT_json="{}\n"),
             ("--strict",)),
        Case("quiet-error", chart("quiet-error", templates__x_DOT_json="{}\n"), ("--quiet",)),
        Case("crds-not-a-directory", chart("crds-not-a-directory", crds="")),
        Case("text-template", chart("text-template", templates__t_DOT_yaml="just some words\n")),
        Case("empty-documents", chart("empty-documents", templates__e_DOT_yaml="---\n# c\n---\n\n")),
        Case("helpers-and-notes", chart("helpers-and-notes", templates___helpers_DOT_tpl=(
            '{{- define "n" }}{{ .Chart.Name }}{{ end }}\n'), templates__NOTES_DOT_txt="{{ include \"n\" . }}\n")),
        Case("subchart-archive", chart("subchart-archive") | {
            "Chart.yaml": "apiVersion: v2\nname: subchart-archive\nversion: 0.1.0\n"
                          "dependencies:\n- name: other\n  version: 0.1.0\n"}, ("--with-subcharts",)),
        Case("deployment-with-selector", chart("deployment-with-selector", templates__d_DOT_yaml=(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  selector:\n"
            "    matchLabels:\n      a: b\n"))),
        Case("maintainer-null", chart("maintainer-null") | {
            "Chart.yaml": "apiVersion: v2\nname: maintainer-null\nversion: 0.1.0\nmaintainers:\n- null\n"}),
        Case("lowest-version", chart("lowest-version") | {
            "Chart.yaml": "apiVersion: v2\nname: lowest-version\nversion: 0.0.0-0\n"}),
        Case("requirements-v1", chart("requirements-v1") | {
            "Chart.yaml": "apiVersion: v1\nname: requirements-v1\nversion: 0.1.0\n",
            "requirements.yaml": "dependencies:\n- name: sub\n  version: 0.1.0\n"}),
        *_edge_cases(chart),
        # deploy-runner's history rule (runner/lint/history.py) stays silent on guarded uses
        *(Case(f"history-guarded{suffix}", chart(f"history-guarded{suffix}", templates__h_DOT_yaml=(
            HISTORY_GUARDED)), flags) for suffix, flags in (("", ()), ("-strict", ("--strict",)))),
    ]


# .Release.History / .DeployedChart(s) under every kind of guard the history rule knows:
# Helm renders them as absent (its .Release has no History), deploy-runner as empty
HISTORY_GUARDED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-history
data:
  {{- if .Release.History }}
  last: {{ (index .Release.History 0).Chart.Version | quote }}
  {{- end }}
  {{- with .DeployedChart }}
  from: {{ .Version | quote }}
  {{- end }}
  {{- if and .DeployedChart (semverCompare "<2" .DeployedChart.Version) }}
  migrate: "true"
  {{- end }}
  charts: "{{ range .DeployedCharts }}{{ .Version }} {{ end }}"
"""


def _edge_cases(chart: Any) -> list[Case]:
    def md(name: str, extra: str) -> dict[str, str]:
        return chart(name) | {"Chart.yaml": f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n{extra}"}

    def tpl(name: str, text: str) -> Case:
        return Case(name, chart(name, templates__t_DOT_yaml=text))

    return [
        Case("emails", md("emails", "maintainers:\n- name: a\n  email: a.b+c@example.co.uk\n"
                          "- name: b\n  email: x@y\n")),
        Case("email-dots", md("email-dots", "maintainers:\n- name: a\n  email: a..b@example.com\n")),
        Case("urls", md("urls", "maintainers:\n- name: a\n  url: example.com/x\n"
                        "- name: b\n  url: https://github.com/a\n- name: c\n  url: localhost\n")),
        Case("url-no-dot", md("url-no-dot", "maintainers:\n- name: a\n  url: foo/bar\n")),
        Case("url-port", md("url-port", "maintainers:\n- name: a\n  url: example.com:8080\n")),
        Case("sources-ok", md("sources-ok", "sources:\n- https://github.com/a/b\n- git://x.y/z\n"
                              "icon: data:image/png;base64,xx\n")),
        Case("icon-path", md("icon-path", "icon: /icon.png\n")),
        Case("unknown-maintainer-field", md("unknown-maintainer-field",
                                            "maintainers:\n- name: a\n  mail: x\n")),
        Case("unknown-dependency-field", md("unknown-dependency-field",
                                            "dependencies:\n- name: a\n  version: 1\n  repo: x\n")),
        Case("case-folded-field", md("case-folded-field", "Description: x\nAPIVERSION: v2\n")),
        Case("duplicate-key", md("duplicate-key", "description: a\ndescription: b\n")),
        Case("app-version-bool", md("app-version-bool", "appVersion: true\n")),
        Case("version-null", chart("version-null") | {"Chart.yaml": "apiVersion: v2\nname: version-null\n"
                                                                    "version: null\n"}),
        Case("build-metadata", chart("build-metadata") | {
            "Chart.yaml": "apiVersion: v2\nname: build-metadata\nversion: 1.2.3-rc.1+build.5\n"}),
        Case("leading-zero", chart("leading-zero") | {
            "Chart.yaml": "apiVersion: v2\nname: leading-zero\nversion: 01.2.3\n"}),
        Case("short-version", chart("short-version") | {
            "Chart.yaml": "apiVersion: v2\nname: short-version\nversion: \"1.2\"\n"}),
        tpl("metadata-string", "apiVersion: v1\nkind: ConfigMap\nmetadata: foo\n"),
        tpl("kind-map", "apiVersion: v1\nkind: {a: b}\nmetadata:\n  name: x\n"),
        tpl("name-number", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 1.50\n"),
        tpl("list-document", "- a\n- b\n"),
        tpl("json-array", '[{"kind": "ConfigMap"}]\n'),
        tpl("json-two-objects", '{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "A"}}\n'
            '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b_"}}\n'),
        tpl("json-broken", '{"apiVersion": "v1",\n'),
        tpl("json-falls-back-to-yaml", '{"kind": tru, "metadata": {"name": x_y}}\n'),
        tpl("json-then-garbage", '{"a": 1} x\n'),
        tpl("json-then-yaml", '{"a": 1}\n---\n{"b": 2}\nkind: Pod\n'),
        tpl("json-type-error", '{} {"metadata": "x"}\n'),
        tpl("json-many-then-garbage", '{}{}{} x\n'),
        tpl("json-bad-string", '{"a": "\x01"}\n'),
        tpl("separator-comment", CONFIGMAP + "--- # next\n" + CONFIGMAP.replace("-cm", "-cm2")
            + "---\nkind: Secret\nmetadata:\n  name: UPPER\n"),
        tpl("long-service-name", "apiVersion: v1\nkind: Service\nmetadata:\n  name: " + "a" * 70 + "\n"),
        tpl("long-bad-name", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + "A" * 260 + "\n"),
        tpl("namespace-long", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + "A" * 70 + "\n"),
        tpl("csr-name", "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\n"
            "metadata:\n  name: ANY_thing\n"),
        tpl("clusterrole-dots", "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\n"
            "metadata:\n  name: '..'\n"),
        tpl("role-percent", "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\n"
            "metadata:\n  name: 'a%b/c'\n"),
        tpl("tab-indent", "\tapiVersion: v1\n"),
        tpl("statefulset-expressions", "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: s\n"
            "# matchExpressions in a comment counts\n"),
        tpl("daemonset-no-selector", "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: s\n"
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata:\n  name: r\n"),
        tpl("first-doc-bad-stops-all", "a: [\n"),
        Case("bad-stops-later-files", chart("bad-stops-later-files", templates__a_DOT_yaml="a: [\n",
                                            templates__b_DOT_yaml="apiVersion: v1\nkind: Pod\n")),
        tpl("yaml-anchors", "apiVersion: v1\nkind: ConfigMap\nmetadata: &m\n  name: x\ndata:\n  <<: *m\n"),
        tpl("deprecated-flowcontrol", "apiVersion: flowcontrol.apiserver.k8s.io/v1beta3\n"
            "kind: FlowSchema\nmetadata:\n  name: f\n"),
        tpl("deprecated-list-kind", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudgetList\n"
            "metadata:\n  name: p\n"),
        tpl("core-v1-kinds", "apiVersion: v1\nkind: ComponentStatus\nmetadata:\n  name: c\n"),
        Case("deprecated-old-kube", chart("deprecated-old-kube", templates__t_DOT_yaml=(
            "apiVersion: storage.k8s.io/v1beta1\nkind: VolumeAttributesClass\nmetadata:\n  name: v\n")),
            ("--kube-version", "v1.33.2")),
        Case("subchart-values-schema", chart("subchart-values-schema") | {
            "Chart.yaml": "apiVersion: v2\nname: subchart-values-schema\nversion: 0.1.0\n"
                          "dependencies:\n- name: sub\n  version: 0.1.0\n",
            "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
            "charts/sub/values.yaml": "port: 80\n",
            "charts/sub/values.schema.json": '{"properties": {"port": {"type": "string"}}}',
            "charts/sub/templates/cm.yaml": CONFIGMAP}, ("--with-subcharts",)),
        Case("coalesce-warning", chart("coalesce-warning") | {
            "values.yaml": "a:\n  b: 1\n", "templates/cm.yaml": CONFIGMAP}, ("--set", "a=3")),
        Case("helmignore", chart("helmignore") | {".helmignore": "templates/bad.yaml\n",
                                                  "templates/bad.yaml": "a: [\n"}),
        Case("tpl-extension-error", chart("tpl-extension-error", templates___x_DOT_tpl=(
            '{{ define "x" }}{{ .Values.nope.nope }}{{ end }}\n'), templates__u_DOT_yaml=(
            'a: {{ include "x" . }}\n'))),
        Case("schema-not-json", chart("schema-not-json", values_DOT_schema_DOT_json="{not json\n")),
        Case("schema-bad-type", chart("schema-bad-type", values_DOT_schema_DOT_json='{"type": 5}')),
        Case("schema-empty", chart("schema-empty", values_DOT_schema_DOT_json="")),
        Case("values-empty-doc", chart("values-empty-doc", values_DOT_yaml="# nothing\n")),
        Case("values-two-docs", chart("values-two-docs", values_DOT_yaml="a: 1\n---\nb: [\n")),
        Case("archive-not-gzip", {"bad-0.1.0.tgz": "not a gzip\n"}, targets=("bad-0.1.0.tgz",)),
        Case("archive-missing", {"x": ""}, targets=("missing-0.1.0.tgz", "missing.tar.gz")),
        Case("null-dependency", md("null-dependency", "dependencies:\n- null\n")),
        Case("crlf-chart", {"Chart.yaml": "apiVersion: v2\r\nname: crlf-chart\r\nversion: 0.1.0\r\n",
                            "templates/cm.yaml": CONFIGMAP.replace("\n", "\r\n")}),
        Case("bom-chart", {"Chart.yaml": "\ufeffapiVersion: v2\nname: bom-chart\nversion: 0.1.0\n",
                           "values.yaml": "\ufeffa: 1\n", "templates/cm.yaml": CONFIGMAP}),
        tpl("lookup-in-lint", 'a: {{ (lookup "v1" "Pod" "ns" "x") | toJson }}\n'),
        tpl("list-without-policy", "apiVersion: v1\nkind: List\nmetadata:\n  name: l\nitems:\n"
            "- metadata:\n    annotations:\n      other: x\n"),
        Case("strict-info-only", md("strict-info-only", "").copy() | {
            "Chart.yaml": "apiVersion: v2\nname: strict-info-only\nversion: 0.1.0\n"}, ("--strict",)),
        tpl("tpl-error", 'a: {{ tpl "{{ .Values.nope.nope }}" . }}\n'),
        tpl("include-missing", 'a: {{ include "nothere" . }}\n'),
        Case("include-trace", chart("include-trace", templates___h_DOT_tpl=(
            '{{ define "outer" }}{{ include "inner" . }}{{ end }}'
            '{{ define "inner" }}{{ .Values.a.b.c }}{{ end }}\n'), templates__t_DOT_yaml=(
            'a: {{ include "outer" . }}\n'))),
        Case("notes-error", chart("notes-error", templates__NOTES_DOT_txt="{{ .Values.x.y }}\n")),
        Case("subchart-template-error", chart("subchart-template-error") | {
            "Chart.yaml": "apiVersion: v2\nname: subchart-template-error\nversion: 0.1.0\n"
                          "dependencies:\n- name: sub\n  version: 0.1.0\n",
            "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
            "charts/sub/templates/x.yaml": "{{ .Values.q.r }}\n"}),
        Case("disabled-subchart", chart("disabled-subchart") | {
            "Chart.yaml": "apiVersion: v2\nname: disabled-subchart\nversion: 0.1.0\n"
                          "dependencies:\n- name: sub\n  version: 0.1.0\n  condition: sub.on\n",
            "values.yaml": "sub:\n  on: false\n",
            "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
            "charts/sub/templates/x.yaml": "{{ .Values.q.r }}\n"}),
        Case("alias-subchart", chart("alias-subchart") | {
            "Chart.yaml": "apiVersion: v2\nname: alias-subchart\nversion: 0.1.0\n"
                          "dependencies:\n- name: sub\n  version: 0.1.0\n  alias: other\n",
            "charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n"}),
        tpl("whitespace-only", "{{- /* nothing */ -}}\n   \n"),
        Case("values-flag-family", chart("values-flag-family", templates__t_DOT_yaml=(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.n }}-{{ .Release.Name }}"
            "-{{ .Release.Namespace }}-{{ .Release.Revision }}-{{ .Release.IsInstall }}\n"
            "data:\n  j: {{ .Values.j | toJson | quote }}\n  s: {{ .Values.s | quote }}\n")),
            ("--set-json", 'j={"a": [1, 2]}', "--set-string", "s=007", "--set", "n=Upper",
             "--set-literal", "l=a,b", "-n", "Other")),
        Case("coalesce-twice", chart("coalesce-twice", values_DOT_yaml="sa: ''\n"),
             ("--set", "sa.create=false")),  # one key: Go ranges maps in random order
        Case("required-then-error", chart("required-then-error",
                                          templates__a_DOT_yaml='a: {{ required "need a" .Values.a }}\n',
                                          templates__b_DOT_yaml='b: {{ required "need b" .Values.b }}\n',
                                          templates__c_DOT_yaml="c: {{ .Values.c.d }}\n")),
        Case("path-is-a-file", {"file.txt": "x\n"}, targets=("file.txt",)),
        Case("requirements-on-v2", md("requirements-on-v2", "") | {
            "requirements.yaml": "dependencies:\n- name: sub\n  version: 0.1.0\n"}),
        Case("deprecated-chart", md("deprecated-chart", "deprecated: true\n")),
        Case("helmignore-warning", chart("helmignore-warning") | {".helmignore": "[\n"}),
        Case("nested-subcharts", chart("nested-subcharts") | {
            "Chart.yaml": "apiVersion: v2\nname: nested-subcharts\nversion: 0.1.0\n"
                          "dependencies:\n- name: mid\n  version: 0.1.0\n",
            "charts/mid/Chart.yaml": "apiVersion: v2\nname: mid\nversion: 0.1.0\n"
                                     "dependencies:\n- name: leaf\n  version: 0.1.0\n",
            "charts/mid/charts/leaf/Chart.yaml": "apiVersion: v1\nname: leaf\nversion: 1\n"},
            ("--with-subcharts", "--quiet")),
    ]


def write_case(case: Case, root: Path) -> list[str]:
    """Write the case under root/<name>; return the paths to lint (a chart, an archive, several)."""
    chart_dir = root / case.name
    chart_dir.mkdir(parents=True, exist_ok=True)
    for rel, text in case.files.items():
        target = chart_dir / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    if case.name == "subchart-archive":
        _write_archive(chart_dir / "charts" / "other-0.1.0.tgz", "other",
                       {"Chart.yaml": "apiVersion: v2\nname: other\nversion: 0.1.0\n"})
    if case.targets:
        return [str(chart_dir / t) for t in case.targets]
    if not case.archive:
        return [str(chart_dir)]
    archive = root / f"{case.name}-0.1.0.tgz"
    _write_archive(archive, case.name, case.files)
    return [str(archive)]


def _write_archive(path: Path, name: str, files: dict[str, str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rel, text in sorted(files.items()):
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"{name}/{rel}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    path.write_bytes(buffer.getvalue())


# ---------------------------------------------------------------- running both


def run_helm_lint(args: list[str], cwd: Path) -> Run:
    proc = subprocess.run([str(helm_binary()), "lint", *args], capture_output=True, text=True,
                          check=False, timeout=300, cwd=cwd)
    return Run(proc.stdout, proc.stderr, proc.returncode)


def run_our_lint(args: list[str], cwd: Path) -> Run:
    """Our CLI in process, as a user calls it through a `helm` link."""
    from runner.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["lint", *args], program="helm")  # as a `helm` link, so usage lines match
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except Exception as exc:  # an internal failure is a difference, not a crash
            return Run(out.getvalue(), f"internal error: {type(exc).__name__}: {exc}\n", 99)
    return Run(out.getvalue(), err.getvalue(), code)


def known_differences() -> set[str]:
    if not KNOWN_DIFFERENCES_FILE.exists():
        return set()
    lines = KNOWN_DIFFERENCES_FILE.read_text().splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _assert_as_listed(case: str, helm: Run, ours: Run) -> None:
    identical = (helm.stdout, helm.stderr, helm.code) == (ours.stdout, ours.stderr, ours.code)
    if case in known_differences():
        assert not identical, f"{case} now lints identical to Helm: remove it from {KNOWN_DIFFERENCES_FILE.name}"
        return
    assert ours.shown() == helm.shown(), f"{case} differs from helm lint"


def corpus_args(chart: str) -> list[str]:
    args = [str(CHARTS_DIR / chart)]
    values = VALUES_DIR / f"{chart}.yaml"
    return args + ["-f", str(values)] if values.exists() else args


def test_known_differences_name_real_cases() -> None:
    names = {c.name for c in cases()} | set(chart_names())
    names |= {f"{n}:{v}" for n in chart_names() for v in CORPUS_VARIANTS}
    names.add("no-arguments")
    for entry in known_differences():
        assert entry in names, entry


def test_case_names_are_unique() -> None:
    names = [c.name for c in cases()]
    assert len(names) == len(set(names))


CORPUS_VARIANTS: dict[str, tuple[str, ...]] = {
    "plain": (),
    "strict": ("--strict",),
    "with-subcharts": ("--with-subcharts",),
    "old-kube-quiet": ("--kube-version", "1.21.0", "--quiet"),
    # a table over a chart's string default: coalesce warnings, logged twice by lint
    # (one toggle only: several schema violations print in Go's random map order)
    "toggle": ("--set", "serviceAccount.create=false"),
}


@pytest.mark.conformance
@pytest.mark.parametrize("variant", list(CORPUS_VARIANTS))
@pytest.mark.parametrize("chart", chart_names())
def test_corpus_chart_lints_as_helm(chart: str, variant: str, tmp_path: Path) -> None:
    args = corpus_args(chart) + list(CORPUS_VARIANTS[variant])
    case = chart if variant == "plain" else f"{chart}:{variant}"
    _assert_as_listed(case, run_helm_lint(args, tmp_path), run_our_lint(args, tmp_path))


@pytest.mark.conformance
@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_scratch_chart_lints_as_helm(case: Case, tmp_path: Path) -> None:
    args = [*write_case(case, tmp_path), *case.flags]
    _assert_as_listed(case.name, run_helm_lint(args, tmp_path), run_our_lint(args, tmp_path))


@pytest.mark.conformance
def test_no_path_argument_as_helm(tmp_path: Path) -> None:
    _assert_as_listed("no-arguments", run_helm_lint([], tmp_path), run_our_lint([], tmp_path))


# ------------------------------------------- beyond Helm: the history rule at the CLI

HISTORY_UNGUARDED = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-history
data:
  {{- if .Values.migrate }}
  from: {{ (index .Release.History 0).Chart.Version | quote }}
  {{- end }}
"""
HISTORY_WARNING = ("[WARNING] templates/h.yaml:7: index .Release.History 0 fails when the history is empty "
                   "(an install, --release-history-max 0, template); guard it with {{ if .Release.History }} "
                   "(or {{ with .DeployedChart }})")


def _with_messages(run: Run, chart: str, messages: list[str]) -> Run:
    """Helm's result for one chart, as if linting `chart` and with `messages` in place of
    its own lines (those between `==> Linting ...` and the blank line)."""
    header, *rest = run.stdout.split("\n")
    blank = rest.index("")
    return Run("\n".join([f"==> Linting {chart}", *messages, *rest[blank:]]), run.stderr, run.code)


@pytest.mark.conformance
def test_unguarded_history_warns_with_file_and_line_as_helm_warns(tmp_path: Path) -> None:
    """docs/releases.md "Lint: history without a guard": a warning naming the template and
    line, shown as Helm shows a warning of its own; it fails the lint with --strict only.
    The chart renders in lint (migrate is false): only deploy-runner's rule sees it, Helm
    lints it clean. The --strict shape is Helm's on a chart that fails --strict with one
    warning of its own (no templates/ directory)."""
    write_case(Case("unguarded", _chart("unguarded", values_DOT_yaml="migrate: false\n",
                                        templates__h_DOT_yaml=HISTORY_UNGUARDED)), tmp_path)
    write_case(Case("one-warning", {"Chart.yaml": GOOD_CHART.format(name="one-warning")}), tmp_path)

    helm = run_helm_lint(["unguarded"], tmp_path)
    assert (helm.stdout, helm.code) == ("==> Linting unguarded\n\n1 chart(s) linted, 0 chart(s) failed\n", 0)
    ours = run_our_lint(["unguarded"], tmp_path)
    assert ours == _with_messages(helm, "unguarded", [HISTORY_WARNING])

    helm_strict = run_helm_lint(["one-warning", "--strict"], tmp_path)
    assert helm_strict.code == 1 and "[WARNING] templates/: directory does not exist" in helm_strict.stdout
    ours_strict = run_our_lint(["unguarded", "--strict"], tmp_path)
    assert ours_strict == _with_messages(helm_strict, "unguarded", [HISTORY_WARNING])
