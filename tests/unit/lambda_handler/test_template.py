"""lambda/template.yaml, the AWS SAM template, passes cfn-lint (pinned in the test extra),
and says what the function reads: its variables, the handler, the ECR push pattern."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from runner.aws.lambda_events import HELM_CONFIG_MEDIA_TYPE
from runner.awslambda import ENVIRONMENT_VARIABLE, GITHUB_SECRET_VARIABLE, SPEC_VARIABLE

TEMPLATE = Path(__file__).resolve().parents[3] / "lambda" / "template.yaml"


def cfn_lint(path: Path) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("cfn-lint", path=str(Path(sys.executable).parent)) or "cfn-lint"
    return subprocess.run([executable, "--format", "parseable", str(path)], capture_output=True, text=True,
                          timeout=300, check=False)


class Tagged(yaml.SafeLoader):
    """CloudFormation's short forms (!Ref, !Sub ...) read as plain values."""


Tagged.add_multi_constructor("!", lambda loader, suffix, node: (
    loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else
    loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else loader.construct_mapping(node)))


def test_the_template_passes_cfn_lint_and_a_broken_one_does_not(tmp_path: Path) -> None:
    checked = cfn_lint(TEMPLATE)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    broken = tmp_path / "template.yaml"
    broken.write_text(TEMPLATE.read_text().replace("Role: !GetAtt FunctionRole.Arn", "Role: !GetAtt NoRole.Arn"))
    refused = cfn_lint(broken)
    assert refused.returncode != 0 and "NoRole" in refused.stdout


def test_the_template_configures_what_the_function_reads() -> None:
    template = yaml.load(TEMPLATE.read_text(), Loader=Tagged)  # noqa: S506 - SafeLoader's subclass
    function = template["Resources"]["Function"]["Properties"]
    assert function["Handler"] == "handler.handler" and function["Runtime"] == "python3.12"
    assert {SPEC_VARIABLE, ENVIRONMENT_VARIABLE, GITHUB_SECRET_VARIABLE, "DEPLOY_RUNNER_EKS_CLUSTER"} <= set(
        function["Environment"]["Variables"])
    pattern = function["Events"]["ChartPushedToEcr"]["Properties"]["Pattern"]
    assert pattern["detail"]["artifact-media-type"] == [HELM_CONFIG_MEDIA_TYPE]
    assert function["Events"]["ChartPushedToS3"]["Properties"]["Events"] == "s3:ObjectCreated:*"
