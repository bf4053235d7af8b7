"""Function-level conformance: template snippets rendered by Helm 4.1.4 and by us.

Each case is a snippet of template text (plus optional top-level defines).
Nothing expected is written down: Helm 4.1.4 renders every case and its output
(or its error text) is the expectation. Its renders are kept in the render cache
(testbed.helm.helm_template_cached, keyed by the scratch chart's bytes); a case
that differs from the cached outcome is compared again with Helm run now.

A case renders in one of two modes:
- "output": the snippet sits in a define, and the template prints
  `include` of it through b64enc, so any text (also text that is not YAML,
  or that holds "<no value>") comes back exactly as the engine produced it.
- "error": the snippet is the whole template file, so the error text names
  the template file, line and column as a user would see them.
"""

from __future__ import annotations

import base64
import contextlib
import io
import re
import shutil
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from testbed.helm import helm_template_cached

CASES_DIR = Path(__file__).parent / "cases"
CHART_NAME = "conf"
RELEASE = "rel"
NAMESPACE = "ns"
_SOURCE = re.compile(r"^# Source: (\S+)$", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    id: str
    tpl: str
    mode: str = "output"  # "output" | "error"
    defines: str = ""
    values: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Outcome:
    """What a user sees: the rendered text, or the error Helm prints."""

    output: str | None
    error: str | None

    def describe(self) -> str:
        return f"output={self.output!r}" if self.error is None else f"error={self.error!r}"


def load_cases(directory: Path = CASES_DIR) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(directory.glob("*.yaml")):
        for entry in yaml.safe_load(path.read_text()) or []:
            cases.append(
                Case(
                    id=f"{path.stem}/{entry['name']}",
                    tpl=entry["tpl"],
                    mode=entry.get("mode", "output"),
                    defines=entry.get("defines", ""),
                    values=entry.get("values") or {},
                )
            )
    ids = [case.id for case in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError(f"duplicate case names: {sorted(duplicates)}")
    return cases


def template_file_name(case: Case) -> str:
    return "templates/" + re.sub(r"[^A-Za-z0-9_.-]", "-", case.id) + ".yaml"


def case_template(case: Case) -> str:
    if case.mode == "error":
        return case.defines + case.tpl
    define = f"case:{case.id}"
    return (
        f'{{{{- define "{define}" }}}}{case.tpl}{{{{ end }}}}\n'
        f"{case.defines}"
        f'out: {{{{ include "{define}" . | b64enc | quote }}}}\n'
    )


def write_chart(root: Path, cases: Iterable[Case], values: dict[str, Any]) -> Path:
    """A scratch chart holding the given cases, one template file each."""
    if root.exists():
        shutil.rmtree(root)
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text(
        f"apiVersion: v2\nname: {CHART_NAME}\nversion: 1.2.3\nappVersion: \"4.5.6\"\n"
    )
    (root / "values.yaml").write_text(yaml.safe_dump(values, sort_keys=True))
    for case in cases:
        (root / template_file_name(case)).write_text(case_template(case))
    return root


def chart_values(case_or_none: Case | None, shared: dict[str, Any]) -> dict[str, Any]:
    merged = dict(shared)
    if case_or_none is not None:
        merged.update(case_or_none.values)
    return merged


def split_sources(stdout: str) -> dict[str, str]:
    """Helm template output by template path (`conf/templates/x.yaml`)."""
    docs: dict[str, str] = {}
    matches = list(_SOURCE.finditer(stdout))
    for i, match in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(stdout)
        body = stdout[match.end() + 1 : end]
        docs[match.group(1)] = body.removesuffix("---\n")
    return docs


def outcome_from(case: Case, stdout: str, stderr: str, returncode: int) -> Outcome:
    if returncode != 0:
        return Outcome(output=None, error=stderr.strip())
    body = split_sources(stdout).get(f"{CHART_NAME}/{template_file_name(case)}")
    if body is None:
        return Outcome(output="", error=None) if case.mode == "error" else Outcome(None, "no output")
    if case.mode == "error":
        return Outcome(output=body, error=None)
    match = re.search(r'^out: "([A-Za-z0-9+/=]*)"$', body, re.MULTILINE)
    if match is None:
        return Outcome(output=None, error=f"unexpected document: {body!r}")
    return Outcome(output=base64.b64decode(match.group(1)).decode("utf-8", "replace"), error=None)


def run_helm(helm: Path, chart: Path, *, cached: bool) -> subprocess.CompletedProcess[str]:
    """`helm template` of a scratch chart: from the render cache (testbed.helm, keyed by the
    chart's bytes) or run now."""
    args = ["template", RELEASE, str(chart), "--namespace", NAMESPACE]
    if cached:
        return helm_template_cached(args, [chart], timeout=120)
    return subprocess.run([str(helm), *args], capture_output=True, text=True, check=False, timeout=120)


def run_ours(chart: Path) -> tuple[str, str, int]:
    """Our `deploy-runner template`, in process (as the CLI runs it)."""
    from runner.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["template", RELEASE, str(chart), "--namespace", NAMESPACE])
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except Exception as exc:  # an internal failure is a difference, not a crash of the suite
            return "", f"internal error: {type(exc).__name__}: {exc}", 99
    return out.getvalue(), err.getvalue(), code


def batched(case: Case) -> bool:
    """Whether Helm renders the case in the batch of output cases (else alone)."""
    return case.mode == "output" and not case.values


def helm_outcomes(helm: Path, cases: list[Case], shared: dict[str, Any], workdir: Path, *,
                  cached: bool = True) -> dict[str, Outcome]:
    """Helm's outcome for every case: output cases in one batch run, the rest one by one;
    from the render cache, or (not `cached`) Helm run now."""
    outcomes: dict[str, Outcome] = {}
    batch = [c for c in cases if batched(c)]
    if batch:
        chart = write_chart(workdir / "helm-batch", batch, shared)
        proc = run_helm(helm, chart, cached=cached)
        if proc.returncode == 0:
            for case in batch:
                outcomes[case.id] = outcome_from(case, proc.stdout, proc.stderr, 0)
    for case in cases:
        if case.id not in outcomes:
            chart = write_chart(workdir / "helm-one", [case], chart_values(case, shared))
            proc = run_helm(helm, chart, cached=cached)
            outcomes[case.id] = outcome_from(case, proc.stdout, proc.stderr, proc.returncode)
    return outcomes


def our_outcome(case: Case, shared: dict[str, Any], workdir: Path) -> Outcome:
    chart = write_chart(workdir / "ours-one", [case], chart_values(case, shared))
    stdout, stderr, code = run_ours(chart)
    return outcome_from(case, stdout, stderr, code)
