"""`template --post-renderer` against Helm 4.1.4: postrenderer/v1 plugins made here, run by both.

The plugins live in a directory passed to both tools as $HELM_PLUGINS. Helm
runs every case in the test run and its stdout, stderr and exit code are
compared with ours; nothing expected is stored. Helm runs with
HELM_NO_PLUGINS=1: deploy-runner has no CLI plugins, so it never does Helm's
start-up scan for them (which logs broken plugin.yaml files a second time).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testbed.helm import helm_binary
from tests.conformance import harness

PLUGIN_YAML = """\
apiVersion: v1
name: {name}
type: {kind}
runtime: subprocess
version: 0.1.0
runtimeConfig:
  platformCommand:
    - command: {command}
"""
# name -> (plugin type, shell script body); each runs as ${HELM_PLUGIN_DIR}/run.sh.
PLUGINS: dict[str, tuple[str, str]] = {
    "identity": ("postrenderer/v1", "cat"),
    # What Helm sends, as the literal text of a ConfigMap, so that the merged stream is compared too.
    "show-input": ("postrenderer/v1", "printf 'apiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: input\\n"
                   "data:\\n  stream: |\\n'; sed 's/^/    /'"),
    "rename": ("postrenderer/v1", "sed -e 's/nginx/caddy/g' -e 's/app: web/app: site/'"),
    "args": ("postrenderer/v1", 'sed "s/$1/$2/g"'),
    # Documents in reverse order: Helm re-sorts them by kind and file.
    "reverse": ("postrenderer/v1", "awk 'BEGIN{RS=\"\\n---\\n\"} {d[NR]=$0} "
                "END{for(i=NR;i>0;i--){printf \"%s\\n\", d[i]; if(i>1) print \"---\"}}'"),
    # A document of its own (no file annotation) carrying what the plugin was given.
    "extra": ("postrenderer/v1", 'cat; printf -- "---\\napiVersion: v1\\nkind: ConfigMap\\n'
              'metadata:\\n  name: from-plugin\\ndata:\\n  name: %s\\n  dir: %s\\n  args: \\"%s\\"\\n" '
              '"$HELM_PLUGIN_NAME" "$HELM_PLUGIN_DIR" "$*"'),
    # Strips every file annotation: documents become generated-by-postrender-N.yaml.
    "unannotate": ("postrenderer/v1", "grep -v postrender-filename"),
    "fails": ("postrenderer/v1", "echo to-stderr >&2; echo to-stdout; exit 3"),
    "empty": ("postrenderer/v1", "cat >/dev/null; echo '  '"),
    "badyaml": ("postrenderer/v1", "echo 'a: [b'"),
    "scalar": ("postrenderer/v1", "echo just text"),
    "sequence": ("postrenderer/v1", "printf -- '- a\\n- b\\n'"),
    "badseparator": ("postrenderer/v1", "printf 'a: 1\\n--- x\\nb: 2\\n'"),
    "cli": ("cli/v1", "cat"),
    # Streams of the plugin's own, reading nothing.
    "anchors": ("postrenderer/v1", "cat >/dev/null; printf 'a: &x 1\\nb: *x\\nc: &m\\n  k: v\\nd: *m\\n"
                "e: &s\\n- 1\\nf: [&q 2, *q]\\ng:\\n  <<: *m\\n  z: 1\\nh: &e \"\"\\nx: <<\\n'"),
    "tags": ("postrenderer/v1", "cat >/dev/null; printf 'a: !!str 123\\nb: !custom x\\nc: !!binary aGVsbG8=\\n"
             "d: !!map {x: 1}\\ne: !t\\n  k: v\\nf: !!int \"3\"\\ng: !<tag:yaml.org,2002:str> y\\n"
             "h: ! z\\nl: !!seq\\n- 1\\nm: &a !!str q\\n'"),
    "lists": ("postrenderer/v1", "cat >/dev/null; printf 'kind: List\\nitems:\\n- kind: A\\n- metadata: {name: x}\\n'"),
    "bare-list": ("postrenderer/v1", "cat >/dev/null; printf 'kind: List\\nitems:\\n- a: 1\\n'"),
    "two-lists": ("postrenderer/v1", "cat >/dev/null; printf 'kind: List\\nitems:\\n- a: 1\\n---\\n"
                  "kind: List\\nitems:\\n- b: 2\\n'"),
    "markers": ("postrenderer/v1", "cat >/dev/null; printf -- '---\\na: 1\\n...\\n---\\nb: 2\\r\\n---\\n"
                "---\\n\\n---\\n# only a comment\\n---\\n~\\n'"),
}
CHART_FILES: dict[str, str] = {
    "Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    "values.yaml": "image: nginx\n",
    "templates/_helpers.tpl": '{{- define "web.name" }}web{{ end }}\n',
    "templates/NOTES.txt": "Thanks for installing {{ .Release.Name }}.\n",
    "templates/empty.yaml": "{{- if false }}\nkind: Nothing\n{{- end }}\n",
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ include "web.name" . }}
  labels: {app: web, tier: "front"}
  annotations: {}
spec:
    replicas: 1
    selector:
        matchLabels:
            app: web
    template:
        metadata:
            labels:
                app: web
        spec:
            containers:
                -   name: web
                    image: "{{ .Values.image }}:1.25"
                    args: [ "--port", '8080', --verbose ]
                    command:
                    - sh
                    - -c
                    - |
                      echo start
                      exec nginx   -g 'daemon off;'
                    env:
                      - name: EMPTY
                        value: ""
                      - name: TILDE
                        value: ~
                      - name: FOLDED
                        value: >
                          a folded
                          text
                      - name: QUOTE
                        value: 'it''s'
                      - name: TRAILING
                        value: "ends with space "
""",
    "templates/service.yaml": """\
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
  - port: 80
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: no-annotations
data:
  multi: "line one\\nline two\\n"
  long: {{ repeat 30 "word " | quote }}
  key with spaces: value
  "quoted key": 1
""",
    # More comment placements go-yaml v3 keeps (each its own document).
    "templates/shapes.yaml": """\
spec:
# less indented than its key
  k: v
---
a:
  b: 1
# head at the root
d: 2
---
a:
  - x
  # foot of an indented list
d: 2
---
a:
  b:
    c: 1
    # foot, then a blank line

d: 2
---
l:
- a: 1
  b: 2
  # foot of an item
- c: 3
  # head of a later key
  d: 4
---
a: 1

# at the end, after a blank line
---
a:
  b: 1

  # head after a blank line, nested
  c: 2
---
x:
  a: 1
  # foot, a blank line, a sibling

  b: 2
l:
- 1
# foot of an item, a blank line, an item

- 2
---
a: 1 #c
#d, after a line comment at the end: the document's foot
---
a: 1 # trailing spaces   \n\
  # \n\
# a run of mixed columns   \n\
b: 2\t# after a tab
c: 3 #no space
#
d: 4
""",
    "templates/list.yaml": """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: from-list-a
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: from-list-b
""",
    "templates/nometa.yaml": "apiVersion: v1\nkind: Namespace\n# foot at the end\n",
    "templates/comments.yaml": """\
# about this file

# about the ConfigMap
apiVersion: v1
kind: ConfigMap
metadata:
  name: comments
  # head of labels
  labels:
      x: y
data:
    # head of k1
    k1: v1   # after k1
    # two lines
    # of head
    k2: "v2" # after a quoted value
    k3: [a] # after a flow sequence
    k4: # after a key
      x: 1
    deep:
      k: v
      # foot two levels down

    # head after a blank line
    k5: v5
rules:
  # head of the first item
  - apiGroups: [""]
    # head inside the item
    resources: ["pods"]
    # foot of the item
  - apiGroups: ["apps"] # after a flow item
  # foot of the list
""",
    "templates/hook.yaml": """\
apiVersion: batch/v1
kind: Job
metadata:
  name: web-setup
  annotations:
    "helm.sh/hook": pre-install
    "helm.sh/hook-weight": "-1"
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: setup
        image: nginx
""",
    "templates/tests/test.yaml": """\
apiVersion: v1
kind: Pod
metadata:
  name: web-test
  annotations:
    helm.sh/hook: test
spec:
  containers:
  - name: t
    image: busybox
""",
    "crds/crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
                     "metadata:\n  name: things.example.com  # kept as written\n",
}


def _write_plugin(root: Path, name: str, kind: str, script: str) -> None:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "plugin.yaml").write_text(
        PLUGIN_YAML.format(name=name, kind=kind, command="${HELM_PLUGIN_DIR}/run.sh"))
    (directory / "run.sh").write_text(f"#!/bin/sh\n{script}\n")
    (directory / "run.sh").chmod(0o755)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("postrender")
    for name, (kind, script) in PLUGINS.items():
        _write_plugin(root / "plugins", name, kind, script)
    for relative, text in CHART_FILES.items():
        (root / "web" / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / "web" / relative).write_text(text)
    return root


def _helm(workdir: Path, argv: list[str], plugins: Path) -> tuple[str, str, int]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(workdir), "HELM_PLUGINS": str(plugins),
           "HELM_NO_PLUGINS": "1"}
    proc = subprocess.run([str(helm_binary()), *argv], capture_output=True, text=True,
                          cwd=workdir, env=env, check=False, timeout=120)
    return proc.stdout, proc.stderr, proc.returncode


def _ours(workdir: Path, argv: list[str], plugins: Path,
          monkeypatch: pytest.MonkeyPatch) -> tuple[str, str, int]:
    monkeypatch.chdir(workdir)
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("HELM_PLUGINS", str(plugins))
    out, err, code = harness.run_cli(argv)
    return out.decode(), err, code


def _same(workdir: Path, argv: list[str], monkeypatch: pytest.MonkeyPatch,
          plugins: Path | None = None) -> tuple[str, str, int]:
    plugins = plugins or workdir / "plugins"
    helm = _helm(workdir, argv, plugins)
    assert _ours(workdir, argv, plugins, monkeypatch) == helm
    return helm


CASES: tuple[tuple[str, ...], ...] = (
    ("--post-renderer", "identity"),
    ("--post-renderer", "show-input"),
    ("--post-renderer", "rename"),
    ("--post-renderer", "args", "--post-renderer-args", "web", "--post-renderer-args", "site"),
    ("--post-renderer-args", "nginx", "--post-renderer", "args", "--post-renderer-args", "httpd"),
    ("--post-renderer", "reverse"),
    ("--post-renderer", "extra", "--post-renderer-args", "one", "--post-renderer-args", "two words"),
    ("--post-renderer", "unannotate"),
    ("--post-renderer", "identity", "--include-crds"),
    ("--post-renderer", "identity", "--show-only", "templates/deployment.yaml"),
    ("--post-renderer", "identity", "--no-hooks"),
    ("--post-renderer", "identity", "--skip-tests", "--is-upgrade"),
    ("--post-renderer", "fails"),
    ("--post-renderer", "empty"),
    ("--post-renderer", "badyaml"),
    ("--post-renderer", "scalar"),
    ("--post-renderer", "sequence"),
    ("--post-renderer", "badseparator"),
    ("--post-renderer", "cli"),
    ("--post-renderer", "anchors"),
    ("--post-renderer", "tags"),
    ("--post-renderer", "lists"),
    ("--post-renderer", "bare-list"),
    ("--post-renderer", "two-lists"),
    ("--post-renderer", "markers"),
    ("--post-renderer", "identity", "--post-renderer", "rename"),
    ("--post-renderer", "", "--post-renderer", "identity"),
)


@pytest.mark.parametrize("flags", CASES, ids=" ".join)
def test_template_post_renderer_as_helm(flags: tuple[str, ...], workdir: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    _same(workdir, ["template", "r", "web", *flags], monkeypatch)


def test_identity_post_render_changes_layout_as_helm(workdir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The round trip really rewrites the chart (else the cases above would prove little)."""
    plain = _helm(workdir, ["template", "r", "web"], workdir / "plugins")[0]
    rendered = _same(workdir, ["template", "r", "web", "--post-renderer", "identity"], monkeypatch)[0]
    assert rendered != plain
    assert "# Source: web/templates/list.yaml" in plain
    assert "# Source: web/templates/list.yaml" in rendered


@pytest.mark.parametrize("plugin_yaml", [
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 1\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\nbogus: 1\n",
    "apiVersion: v2\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
    "runtimeConfig:\n  platformCommand:\n    - os: windows\n      command: run.bat\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
    "runtimeConfig:\n  platformCommand:\n    - command: ${HELM_PLUGIN_DIR}/missing.sh\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
    "runtimeConfig:\n  platformCommand:\n    - command: no-such-command-anywhere\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
    "runtimeConfig:\n  platformCommand:\n    - command: sed\n      args: [-e, 's/nginx/$HELM_PLUGIN_NAME/']\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n"
    "runtimeConfig:\n  platformCommand:\n    - command: sed -e s/nginx/${HELM_PLUGIN_NAME}x/\n"
    "    - os: linux\n      command: sed -e s/nginx/linux/\n",
    "name: pr\nversion: 0.1.0\ncommand: cat\n",
    "name: p r\nversion: 0.1.0\ncommand: cat\n",
    "name: pr\nversion: 1.0\n",
    "name: pr\ncommand: cat\nplatformCommand: [{command: cat}]\n",
    "name: pr\ndownloaders: [{command: get}]\n",
    "",
    "a: [\n",
    "just text\n",
    "apiVersion: [v1]\n",
    "apiVersion: v1\nname: p.r\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrender/v1\nruntime: subprocess\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: wasm\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\nruntime: subprocess\nversion: 0.1.0\n",
    "apiVersion: v1\nname: pr\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\nruntimeConfig: 3\n",
    "apiVersion: v1\nname: [pr]\ntype: postrenderer/v1\nruntime: subprocess\nversion: 0.1.0\nx: 1\n",
    "apiVersion: v1\nname: pr\ntype: getter/v1\nruntime: subprocess\nversion: 0.1.0\n",
])
def test_plugin_metadata_as_helm(plugin_yaml: str, workdir: Path, tmp_path: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pr").mkdir()
    (tmp_path / "pr" / "plugin.yaml").write_text(plugin_yaml)
    _same(workdir, ["template", "r", "web", "--post-renderer", "pr"], monkeypatch, tmp_path)


def test_broken_plugin_logged_at_every_lookup_as_helm(workdir: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """--post-renderer-args after --post-renderer looks the plugin up again (and warns again).

    The chart is missing so that Helm stops before it collects getter plugins
    (which would log the broken plugin once more; deploy-runner has no getter plugins)."""
    _write_plugin(tmp_path, "pr", "postrenderer/v1", "cat")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "plugin.yaml").write_text("apiVersion: v1\nname: broken\n")
    argv = ["template", "r", "./missing", "--post-renderer-args", "a", "--post-renderer", "pr",
            "--post-renderer-args", "b", "--post-renderer-args", "c"]
    _same(workdir, argv, monkeypatch, tmp_path)


@pytest.mark.parametrize("template", [
    "just text\n",
    "a: [b\n",
    "- a\n- b\n",
    "a: 1\n--- x\nb: 2\n",
    "a: b: c\n",
    "a:\n  - b\n c: d\n",
    "a: 'x\n",
    "a: *nowhere\n",
    "? [a, b]\n: v\n",  # kyaml writes it back; Helm's sorting refuses it
])
def test_templates_helm_cannot_merge_fail_as_helm(template: str, workdir: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ch" / "templates").mkdir(parents=True)
    (tmp_path / "ch" / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    (tmp_path / "ch" / "templates" / "a.yaml").write_text(template)
    _same(workdir, ["template", "r", str(tmp_path / "ch"), "--post-renderer", "identity"], monkeypatch)


def test_two_plugins_with_one_name_as_helm(workdir: Path, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _write_plugin(tmp_path, "a", "postrenderer/v1", "cat")
    _write_plugin(tmp_path, "b", "cli/v1", "cat")
    (tmp_path / "b" / "plugin.yaml").write_text(
        (tmp_path / "b" / "plugin.yaml").read_text().replace("name: b", "name: a"))
    _same(workdir, ["template", "r", "web", "--post-renderer", "a"], monkeypatch, tmp_path)


def test_plugin_found_in_a_later_directory_as_helm(workdir: Path, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    _write_plugin(tmp_path / "first", "rename", "cli/v1", "cat")
    plugins = Path(f"{tmp_path / 'first'}:{workdir / 'plugins'}")
    _same(workdir, ["template", "r", "web", "--post-renderer", "rename"], monkeypatch, plugins)


@pytest.mark.parametrize("chart", harness.chart_names())
def test_corpus_chart_post_rendered_as_helm(chart: str, workdir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HELM_PLUGINS", str(workdir / "plugins"))
    monkeypatch.setenv("HELM_NO_PLUGINS", "1")
    result = harness.check_chart(helm_binary(), chart, ("--post-renderer", "rename"))
    assert result.identical, result.first_difference
