"""examples/workflows checked by actionlint (built from its Go module, pinned in
testbed/go/actionlint/go.mod) against this action.yml: each example in a repository layout
where `uses: deploy-runner/deploy-runner@v1` is `uses: ./`, the action at the root, so
actionlint checks the inputs given and the outputs read against action.yml's."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.workflows.machine import ACTION_NAME, EXAMPLES, ROOT

MODULE = "github.com/rhysd/actionlint"


@pytest.fixture(scope="module")
def actionlint() -> Path:
    from testbed.build import go_tool

    return go_tool("actionlint", MODULE, f"{MODULE}/cmd/actionlint", "actionlint")


def lint(actionlint: Path, repository: Path, workflows: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """actionlint over `workflows` (name: text), the action referenced as `./`."""
    (repository / ".github" / "workflows").mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True, timeout=60)  # its root
    shutil.copy(ROOT / "action.yml", repository / "action.yml")
    for name, text in workflows.items():
        assert f"uses: {ACTION_NAME}@v1" in text, name
        (repository / ".github" / "workflows" / name).write_text(
            text.replace(f"uses: {ACTION_NAME}@v1", "uses: ./"))
    return subprocess.run([str(actionlint), "-no-color"], cwd=repository, capture_output=True,
                          text=True, timeout=120, check=False)


def test_the_examples_pass_actionlint(actionlint: Path, tmp_path: Path) -> None:
    examples = {p.name: p.read_text() for p in sorted(EXAMPLES.glob("*.yml"))}
    assert set(examples) == {"deploy.yml", "plan.yml", "previews.yml", "dispatch.yml", "eks.yml",
                             "rollback.yml", "drift.yml"}
    done = lint(actionlint, tmp_path, examples)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_checks_the_inputs_and_outputs_against_action_yml(
        actionlint: Path, tmp_path: Path) -> None:
    """The check has teeth: an input action.yml lacks, and an output it does not declare
    (the Docker action's per-release `web-revision`), are errors."""
    text = (EXAMPLES / "deploy.yml").read_text()
    wrong = text.replace("kubeconfig: ${{ secrets.KUBECONFIG }}",
                         "kubeconfg: ${{ secrets.KUBECONFIG }}").replace(
        "fromJSON(steps.deploy.outputs.revisions).storefront", "steps.deploy.outputs.web-revision")
    done = lint(actionlint, tmp_path, {"deploy.yml": wrong})
    assert done.returncode == 1
    assert 'input "kubeconfg" is not defined in action "deploy-runner" defined at "./"' \
        in done.stdout, done.stdout
    assert 'property "web-revision" is not defined' in done.stdout, done.stdout


def test_the_repositorys_own_workflows_pass_actionlint(actionlint: Path, tmp_path: Path) -> None:
    """ci.yml and release.yml."""
    shutil.copytree(ROOT / ".github", tmp_path / ".github")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True, timeout=60)
    done = subprocess.run([str(actionlint), "-no-color"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert sorted(p.name for p in (tmp_path / ".github" / "workflows").iterdir()) == [
        "ci.yml", "release.yml"]
    assert done.returncode == 0, done.stdout + done.stderr
