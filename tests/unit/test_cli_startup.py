"""The CLI's start-up shortcuts: one command module per run, a quick exit as a program."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("name", "aliases", "module"), [(n, a, m) for n, a, _, m in cli.COMMANDS])
def test_each_command_is_built_by_its_module_only(name: str, aliases: tuple[str, ...], module: str) -> None:
    stub = next(c for c in cli.root_command().children if c.name == name)
    command = stub.load()
    assert (command.name, command.aliases) == (name, aliases)
    assert command.runnable() or command.children


@pytest.mark.parametrize("argv", [["--debug", "template", "--help"], ["template", "--help", "--debug"]])
def test_help_of_a_command_is_the_same_with_global_flags_anywhere(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["template", "--help"]) == 0
    plain = capsys.readouterr().out
    assert cli.main(argv) == 0
    assert capsys.readouterr().out == plain
    assert plain.startswith("\nRender chart templates locally")


def _chart(tmp_path: Path) -> Path:
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("n: 3\n")
    (chart / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\ndata:\n{{- range until (int .Values.n) }}\n  k{{ . }}: v\n{{- end }}\n")
    return chart


def test_the_program_prints_all_output_and_exits_with_its_code(tmp_path: Path) -> None:
    chart = _chart(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["template", "rel", str(chart)]) == 0
    proc = subprocess.run([sys.executable, "-m", "runner.cli", "template", "rel", str(chart)],
                          capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert (proc.returncode, proc.stdout) == (0, out.getvalue())
    missing = subprocess.run([sys.executable, "-m", "runner.cli", "template", "rel", str(tmp_path / "x")],
                             capture_output=True, text=True, cwd=REPO, timeout=120, check=False)
    assert missing.returncode == 1
    assert missing.stderr.startswith("Error: path ")


def test_the_template_parser_needs_no_shutil_pathlib_csv_or_argparse() -> None:
    code = ("import sys, runner.cli; from runner.cli.cobra import find;"
            "command, rest = find(runner.cli.root_command(), ['template', 'rel', 'c', '-n', 'ns']);"
            "command.all_flags().parse(rest, print);"
            "print(sorted({'shutil', 'pathlib', 'csv', 'dataclasses', 'argparse'} & set(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=True)
    assert proc.stdout.strip() == "[]"


def test_a_bug_reads_as_one_error_line_and_the_traceback_needs_debug(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from runner.cli import repo

    def broken(_args: object) -> int:
        raise ValueError("boom")

    monkeypatch.setattr(repo, "handle_index", broken)
    assert cli.main(["repo", "index", "."]) == 1
    assert capsys.readouterr().err == "Error: internal error: ValueError: boom\n"
    with pytest.raises(ValueError, match="boom"):
        cli.main(["--debug", "repo", "index", "."])


def test_a_template_run_leaves_heavy_modules_unloaded(tmp_path: Path) -> None:
    # What many charts use: a digest, a random string, Capabilities and Files methods
    # and an aliased subchart; none of it needs these modules (each ~0.5-5 ms to import).
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "charts" / "sub").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(
        "apiVersion: v2\nname: c\nversion: 0.1.0\n"
        "dependencies:\n- name: sub\n  version: 0.1.0\n  alias: other\n")
    (chart / "charts" / "sub" / "Chart.yaml").write_text("apiVersion: v2\nname: sub\nversion: 0.1.0\n")
    (chart / "files").mkdir()
    (chart / "files" / "a.txt").write_text("a")
    (chart / "templates" / "cm.yaml").write_text(
        "kind: ConfigMap\ndata:\n"
        "  sum: {{ sha256sum \"x\" }}\n"
        "  rand: {{ randAlphaNum 5 | len }}\n"
        "  has: {{ .Capabilities.APIVersions.Has \"v1\" }}\n"
        "  kube: {{ .Capabilities.KubeVersion.GitVersion }}\n"
        "  files: {{ .Files.Glob \"files/*\" | len }}\n")
    heavy = ["threading", "hashlib", "dataclasses", "inspect", "json", "copy", "zlib", "uuid",
             "secrets", "string", "typing", "contextlib", "datetime", "re2"]
    code = ("import sys; from runner import cli;"
            f"code = cli.main(['template', 'rel', {str(chart)!r}]);"
            f"print(code, sorted(set({heavy!r}) & set(sys.modules)), file=sys.stderr)")
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("DEPLOY_RUNNER_NO_CACHE", None)

    def loaded() -> str:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=REPO, env=env, timeout=120, check=True)
        assert "sum: 2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881" in proc.stdout
        return proc.stderr.strip().splitlines()[-1]

    assert loaded() == "0 ['datetime']"  # a cold run reads the chart's YAML with PyYAML, which imports it
    assert loaded() == "0 []"


@pytest.mark.parametrize("also", ["", "atexit.register(lambda: print('own hook ran'))"])
def test_leaving_at_once_still_runs_the_exit_work_of_a_cluster_command(also: str) -> None:
    """A command that talked to a cluster has urllib3's exit hooks (logging's, its pools'
    weakref finalizers): the program leaves without teardown, running them first; an exit
    hook it does not know keeps the interpreter's own exit, which runs every hook."""
    code = ("import atexit, logging, sys, weakref\n"
            "class Pool: pass\n"
            "pool = Pool()\n"
            "weakref.finalize(pool, print, 'finalizer ran')  # as urllib3's pools register theirs\n"
            "handler = logging.StreamHandler(sys.stdout)\n"
            "handler.flush = lambda: print('handler flushed')\n"
            "logging.getLogger('x').addHandler(handler)\n"
            f"{also}\n"
            "sys.argv = ['deploy-runner', 'version', '--short']\n"
            "from runner.cli import main\n"
            "main()\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("v")  # the command's output first
    assert "finalizer ran" in lines and "handler flushed" in lines
    assert ("own hook ran" in lines) == bool(also)
