"""The program names itself by the name it was invoked by (deploy-runner, or `helm` for a link
so named), everywhere cobra prints a name; as `helm` its `version` is one that tools driving
the helm binary accept (helmfile and its chartify parse it; both refuse any major but 3 and 4).
The byte-for-byte comparison with Helm's messages is tests/conformance/test_cli_commands.py."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from runner import __version__, cli
from testbed.helm import HELM_VERSION

ROOT = Path(__file__).resolve().parents[3]

# semver.org's regular expression for a SemVer 2.0 version (after the `v` Helm prints).
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?"
                    r"(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$")
# github.com/helmfile/chartify v0.28.2 util.go: FindSemVerInfo's semVerRegex, which helmfile
# v1.8.0's helmexec.GetHelmVersion (`helm version --short`) and chartify's DetectHelmVersion
# (`helm version --template={{.Version}}+g{{.GitCommit}}`) read the version with.
CHARTIFY_SEMVER = re.compile(r"v([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?"
                             r"(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?")


@pytest.mark.parametrize(("argv0", "name"), [
    ("/usr/local/bin/helm", "helm"),
    ("helm", "helm"),
    ("/work/.venv/bin/deploy-runner", "deploy-runner"),
    ("./tools/helm4", "helm4"),
    ("/work/runner/cli/__main__.py", "deploy-runner"),  # python -m runner.cli
    ("-c", "deploy-runner"),  # python -c
    ("", "deploy-runner"),  # an embedding interpreter
])
def test_the_name_is_argv0s_base_name(argv0: str, name: str) -> None:
    assert cli.program_name(argv0) == name


def _run(argv: list[str], program: str | None, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv, program=program)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("program", ["deploy-runner", "helm", "dr"])
def test_messages_usage_and_help_name_the_program(program: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["templte"], program, capsys) == (
        1, "", f'Error: unknown command "templte" for "{program}"\n\nDid you mean this?\n\ttemplate\n\n'
               f"Run '{program} --help' for usage.\n")
    assert _run(["status"], program, capsys) == (
        1, "", f'Error: "{program} status" requires 1 argument\n\nUsage:  {program} status RELEASE_NAME [flags]\n')
    code, out, _ = _run(["get", "--help"], program, capsys)
    assert f"Usage:\n  {program} get [command]\n" in out
    assert f'Use "{program} get [command] --help" for more information about a command.' in out
    code, out, _ = _run(["help", "help"], program, capsys)
    assert f"Simply type {program} help [path to command] for full details." in out
    assert f"Usage:\n  {program} help [command] [flags]\n" in out


def test_called_with_arguments_it_is_deploy_runner(capsys: pytest.CaptureFixture[str]) -> None:
    assert "for \"deploy-runner\"" in _run(["templte"], None, capsys)[2]


def test_its_own_version_is_the_packages(capsys: pytest.CaptureFixture[str]) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert __version__ == importlib.metadata.version("deploy-runner") == declared
    assert _run(["version", "--short"], None, capsys) == (0, f"v{declared}\n", "")


def test_run_from_its_source_tree_the_version_is_pyprojects(tmp_path: Path) -> None:
    """As the GitHub Action runs it: the package's files on sys.path, not installed."""
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    tree = tmp_path / "action"
    shutil.copytree(ROOT / "runner", tree / "runner",
                    ignore=shutil.ignore_patterns("__pycache__", "testbed"))
    shutil.copy(ROOT / "pyproject.toml", tree)
    done = subprocess.run([sys.executable, "-I", "-S", "-c",
                           "import sys; sys.path.insert(0, sys.argv[1]); import runner;"
                           "print(runner.version(), runner.__file__)", str(tree)],
                          capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == [declared, str(tree / "runner" / "__init__.py")]


def _helm_version(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    code, out, err = _run(["version", *argv], "helm", capsys)
    assert (code, err) == (0, "")
    return out


def test_as_helm_the_version_is_helms_with_deploy_runner_as_build_metadata(
        capsys: pytest.CaptureFixture[str]) -> None:
    short = _helm_version(["--short"], capsys)
    match = SEMVER.match(short.rstrip("\n").removeprefix("v"))
    assert short.startswith("v") and short.endswith("\n") and match
    major, minor, patch, prerelease, metadata = match.groups()
    assert f"{major}.{minor}.{patch}" == HELM_VERSION and prerelease is None
    assert metadata.split(".") == ["deploy-runner", *__version__.split(".")]
    assert _helm_version(["--template", "{{.Version}}"], capsys) == short.rstrip("\n")
    assert _helm_version([], capsys).startswith(f'version.BuildInfo{{Version:"{short.rstrip()}", GitCommit:""')


@pytest.mark.parametrize("argv", [["--short"], ["--template={{.Version}}+g{{.GitCommit}}"]],
                         ids=["helmfile", "chartify"])
def test_as_helm_the_version_reads_as_helm_4_to_helmfile(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    found = CHARTIFY_SEMVER.search(_helm_version(argv, capsys).strip())
    assert found and SEMVER.match(found.group(0).removeprefix("v"))  # Masterminds' NewVersion takes it
    major, minor, patch = found.group(1), found.group(2).lstrip("."), found.group(3).lstrip(".")
    assert f"{major}.{minor}.{patch}" == HELM_VERSION


def test_a_link_named_helm_is_helm(tmp_path: Path) -> None:
    """The installed console script, through a link: argv[0] names the program."""
    link = tmp_path / "helm"
    link.symlink_to(Path(sys.executable).with_name("deploy-runner"))
    version = subprocess.run([str(link), "version", "--short"], capture_output=True, text=True, check=False)
    typo = subprocess.run([str(link), "templte"], capture_output=True, text=True, check=False)
    assert version.stdout.startswith(f"v{HELM_VERSION}+deploy-runner.")
    assert typo.stderr.endswith("Run 'helm --help' for usage.\n")
