"""`run` and `schema` on the command line, without a cluster: spec errors as FILE:LINE lines
on stderr (exit 1, nothing on stdout, no traceback); the schema as JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from runner import cli


def _cli(argv, monkeypatch, capsys, stdin=""):
    monkeypatch.setenv("KUBECONFIG", "/nonexistent/kubeconfig")
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_broken_spec_lists_every_problem_with_its_line(tmp_path: Path, monkeypatch, capsys):
    spec = tmp_path / "deploy-runner.yaml"
    spec.write_text("releases:\n- name: a\n  chart: ./a\n  applyMethod: maybe\n  bogus: 1\n")
    code, out, err = _cli(["run", "--spec", str(spec)], monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err == (f"Error: {spec} has 2 problems:\n"
                   f"{spec}:4: releases[0].applyMethod: must be one of ssa, csa, auto\n"
                   f"{spec}:5: releases[0].bogus: unknown key\n")


def test_a_spec_on_standard_input(monkeypatch, capsys):
    code, out, err = _cli(["run", "--spec", "-", "--plan"], monkeypatch, capsys,
                          stdin="releases:\n- {name: a, chart: ./a, wait: soon}\n")
    assert code == 1
    assert err == "Error: <stdin>:2: releases[0].wait: must be one of watcher, legacy, hookOnly, none or a boolean\n"


def test_a_missing_spec_says_how_to_name_one(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, _, err = _cli(["run"], monkeypatch, capsys)
    assert (code, err) == (1, "Error: open deploy-runner.yaml: no such file or directory (write one, or "
                              "name it with --spec)\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "--concurrency", "0"], "Error: --concurrency 0: must be at least 1\n"),
    (["run", "--plan", "--sync"], "Error: --plan and --sync cannot be used together\n"),
])
def test_flags_that_cannot_work_are_refused(argv, message, monkeypatch, capsys):
    assert _cli(argv, monkeypatch, capsys)[::2] == (1, message)


def test_schema_prints_the_json_schema(monkeypatch, capsys):
    code, out, _ = _cli(["schema"], monkeypatch, capsys)
    schema = json.loads(out)
    assert code == 0 and schema["title"] == "deploy-runner spec"
    assert "releases" in schema["properties"]


def test_a_choice_flag_names_its_choices(monkeypatch, capsys):
    for flags, choices in ((["--view", "both"], "live, manifest"), (["-o", "yaml"], "text, json, markdown"),
                           (["--report", "slack"], "auto, github, none")):
        code, out, err = _cli(["run", *flags], monkeypatch, capsys)
        assert (code, out) == (1, ""), err
        assert f"must be one of {choices}" in err and err.startswith("Error: invalid argument"), err
