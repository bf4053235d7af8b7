"""What scripts read from install and upgrade (`-o json|yaml`: Helm's release object, so
`jq .info.status` works), --hide-notes, and `template --dry-run=server`, each compared with
Helm 4.1.4 on the testbed."""

from __future__ import annotations

import json
import re

import pytest

from runner.encoding.goyaml import load
from tests.e2e.release_helpers import ours
from tests.fixtures import DEMO_TEMPLATES, write_chart

pytestmark = pytest.mark.e2e

_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$")


def _comparable(data: object, name: str) -> object:
    """The object with timestamps as <time> and the release name as NAME."""
    if isinstance(data, dict):
        return {k: _comparable(v, name) for k, v in data.items()}
    if isinstance(data, list):
        return [_comparable(v, name) for v in data]
    if isinstance(data, str):
        return "<time>" if _STAMP.match(data) else data.replace(name, "NAME")
    return data


def _chart(tmp_path):
    return write_chart(tmp_path, templates={"cm.yaml": DEMO_TEMPLATES["cm.yaml"],
                                            "NOTES.txt": DEMO_TEMPLATES["NOTES.txt"]})


@pytest.mark.parametrize("output", ["json", "yaml"])
@pytest.mark.parametrize("command", [["install"], ["upgrade", "--install"]])
def test_output_is_helms_release_object(cluster, namespace, helm, tmp_path, output, command):
    chart = _chart(tmp_path)
    theirs = helm(*command, "hrel", str(chart), "-n", namespace, "--set", "message=hi", "-o", output)
    mine = ours(cluster, namespace, *command, "orel", str(chart), "--set", "message=hi", "-o", output)
    assert theirs.returncode == 0 and mine.code == 0, (theirs.stderr, mine.err)
    parse = json.loads if output == "json" else load
    helm_release, our_release = parse(theirs.stdout), parse(mine.out)
    assert our_release["info"]["status"] == "deployed"  # what `jq .info.status` reads
    assert _comparable(our_release, "orel") == _comparable(helm_release, "hrel")


def test_upgrade_output_is_helms_release_object(cluster, namespace, helm, tmp_path):
    chart = _chart(tmp_path)
    for tool_install in (helm("install", "hrel", str(chart), "-n", namespace).returncode,
                         ours(cluster, namespace, "install", "orel", str(chart)).code):
        assert tool_install == 0
    theirs = helm("upgrade", "hrel", str(chart), "-n", namespace, "--set", "message=b", "-o", "json")
    mine = ours(cluster, namespace, "upgrade", "orel", str(chart), "--set", "message=b", "-o", "json")
    assert _comparable(json.loads(mine.out), "orel") == _comparable(json.loads(theirs.stdout), "hrel")
    assert json.loads(mine.out)["version"] == 2


@pytest.mark.parametrize("command", [["install"], ["upgrade", "--install"]])
def test_hide_notes_leaves_the_notes_out_of_the_status(cluster, namespace, helm, tmp_path, command):
    chart = _chart(tmp_path)
    theirs = helm(*command, "hrel", str(chart), "-n", namespace, "--hide-notes")
    mine = ours(cluster, namespace, *command, "orel", str(chart), "--hide-notes")
    stamp = re.compile(r"LAST DEPLOYED: .*")
    assert stamp.sub("", mine.out).replace("orel", "NAME") == stamp.sub("", theirs.stdout).replace("hrel", "NAME")
    assert "NOTES:" not in mine.out
    assert "Thanks for installing" in json.loads(
        ours(cluster, namespace, "status", "orel", "-o", "json").out)["info"]["notes"]


CAPABILITIES = {"caps.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: caps
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  string: "{{ .Capabilities.KubeVersion }}"
  git: {{ .Capabilities.KubeVersion.GitVersion | quote }}
  major: {{ .Capabilities.KubeVersion.Major | quote }}
  minor: {{ .Capabilities.KubeVersion.Minor | quote }}
  apps: {{ .Capabilities.APIVersions.Has "apps/v1/Deployment" | quote }}
  extra: {{ .Capabilities.APIVersions.Has "example.com/v9" | quote }}
  count: {{ len .Capabilities.APIVersions | quote }}
"""}


@pytest.mark.parametrize("flags", [["--dry-run=server"], ["--dry-run=server", "--api-versions", "example.com/v9"],
                                   ["--validate"]])
def test_template_server_dry_run_sees_the_clusters_capabilities(cluster, namespace, helm, tmp_path, flags):
    chart = write_chart(tmp_path, templates=CAPABILITIES)
    theirs = helm("template", "r", str(chart), "-n", namespace, *flags)
    mine = ours(cluster, namespace, "template", "r", str(chart), *flags)
    assert theirs.returncode == 0, theirs.stderr
    assert (mine.code, mine.out, mine.err) == (0, theirs.stdout, theirs.stderr)
    offline = ours(cluster, namespace, "template", "r", str(chart))
    assert offline.out != mine.out  # the testbed is not the offline default
