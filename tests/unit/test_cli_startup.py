"""The CLI's start-up shortcuts: one command module per run, a quick exit as a program."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runner import cli
from runner.cli.flags import HelpFormatter

REPO = Path(__file__).resolve().parents[2]


def _commands(parser: object) -> set[str]:
    sub = next(a for a in parser._actions if a.dest == "command")  # type: ignore[attr-defined]  # noqa: SLF001
    return set(sub.choices)


def test_the_full_parser_has_every_command() -> None:
    assert set(cli.COMMANDS) <= _commands(cli.build_parser())


@pytest.mark.parametrize("word", sorted(cli.COMMANDS))
def test_a_command_word_registers_its_module(word: str) -> None:
    assert word in _commands(cli.build_parser(word))


@pytest.mark.parametrize("argv", [["--debug", "template", "--help"], ["template", "--help"]])
def test_help_of_a_command_is_the_same_either_way(argv: list[str]) -> None:
    def usage(parser: object) -> str:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            parser.parse_args(argv)  # type: ignore[attr-defined]
        return out.getvalue()

    assert usage(cli.build_parser("template")) == usage(cli.build_parser())


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


def test_the_template_parser_needs_no_shutil_pathlib_or_csv() -> None:
    code = ("import sys, runner.cli; runner.cli.build_parser('template')"
            ".parse_known_args(['template', 'rel', 'c', '-n', 'ns']);"
            "print(sorted({'shutil', 'pathlib', 'csv', 'dataclasses'} & set(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=True)
    assert proc.stdout.strip() == "[]"


@pytest.mark.parametrize("columns", ["1", "30", "80", "200"])
def test_help_is_laid_out_as_argparse_lays_it_out(columns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)

    def text(formatter_class: type[argparse.HelpFormatter]) -> str:
        parser = argparse.ArgumentParser(prog="deploy-runner template", formatter_class=formatter_class)
        parser.add_argument("args", nargs="*", metavar="[NAME] CHART")
        parser.add_argument("--post-renderer-args", action="append", default=[],
                            help="an argument to the post-renderer (can specify multiple)")
        parser.add_argument("--insecure-skip-tls-verify", action="store_true")
        return parser.format_help() + parser.format_usage()

    assert text(HelpFormatter) == text(argparse.HelpFormatter)


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
             "secrets", "string", "typing", "contextlib", "datetime"]
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
