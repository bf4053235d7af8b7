"""Release-corpus conformance: every corpus chart installed, upgraded twice, rolled back and
uninstalled by Helm 4.1.4 and by deploy-runner, each tool on a testbed of its own.

Compared per step, as a user would check them:
- the command's exit code, output and error, the same once only what must differ is
  normalised: the program name, the deploy time, durations, client-go's time and process id,
  the order in which the API server lists a refusal's fields or an answer's warnings. Ours
  runs with --no-progress and without the evidence it prints after Helm's `Error:` line and
  adds to a failed record's description: its own documented additions (docs/releases.md,
  docs/hooks.md);
- the release as `helm status -o json` reads it back: status, revision, description (both
  tools' records are read with the real helm, so helm must read ours too);
- the stored manifest, document by document. Charts that SOURCES.md lists as
  nondeterministic get a second Helm render of their install (`install --dry-run=server`):
  a line where Helm's two renders differ only keeps its shape there, at every revision
  (tests.conformance.harness, the render suite's rule);
- after each upgrade and the rollback, which objects' manifests changed since the revision
  before.
Then, on the release deploy-runner made, `run --plan`, `run` and `diff` against a spec of the
same chart and values must find what Helm's own unchanged upgrade changed (its second
upgrade): for most charts nothing to change, no revision written, an empty diff; for a chart
that renders a new value at every upgrade without `lookup`, exactly those objects.

Charts that create what other charts meet cluster-wide (CRDs, API services, admission
webhooks, ingress, priority and storage classes) run alone on their testbed, one after the
other, and their CRDs are deleted afterwards, so every chart starts on a clean cluster
whatever ran before; the others run a few at a time, each in a namespace of its own (release
and namespace are named after the chart).

`python -m tests.e2e.release_corpus [--details] [CHART...]` prints `chart | step | same? |
first difference` (with --details, both tools' whole account of each step that differs), then
the charts where Helm itself fails on the testbed, and the wall time.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conformance.harness import (
    difference_by_shape,
    first_difference,
    nondeterministic_charts,
    volatile_lines,
)
from tests.corpus import VALUES_DIR, chart_names, corpus_chart
from tests.e2e.release_helpers import helm_part, without_watch_ended

TIMEOUT = "2m"  # hooks are waited for (no --wait): long enough on a busy machine, not more
WORKERS = 3  # charts at once on each testbed, outside the exclusive ones
COMMAND_TIMEOUT_SECONDS = 600
CRD_DELETION_SECONDS = 300
RELEASE_STEPS = ("install", "upgrade", "upgrade again", "rollback")
SPEC_STEPS = ("run --plan", "run", "diff")
# Cluster-wide kinds a chart can leave for others to meet: such a chart runs alone.
EXCLUSIVE_KINDS = frozenset({
    "CustomResourceDefinition", "APIService", "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding", "IngressClass", "PriorityClass", "StorageClass",
})
_DEPLOYED_AT = re.compile(r"^LAST DEPLOYED: .*$", re.MULTILINE)
# `KIND "NAME" is invalid: [a: ..., b: ...]`: the API server lists a refusal's fields in no fixed order
_INVALID_FIELDS = re.compile(r"(is invalid: \[)(.*)\]")
_NEXT_FIELD = re.compile(r", (?=[\w.\[\]-]+: )")
_EVIDENCE_SUMMARY = " (evidence: "  # ours adds it to a failed record's description (docs/hooks.md)
_KLOG_HEADER = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}\s+\d+ ", re.MULTILINE)  # time, pid
_DURATION = re.compile(r"\b\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m|h)(?:\d+(?:\.\d+)?(?:ms|s|m))*\b")
_SOURCE = re.compile(r"^# Source: (.*)$", re.MULTILINE)
# helm-diff's heading of an object: `NAMESPACE, NAME, KIND (GROUP) has changed:`
_DIFF_HEADER = re.compile(r"^[^, ]*, ([^, ]+), (\w+) \([^)]*\) has (?:changed|been added|been removed):",
                          re.MULTILINE)
_DOCUMENT_START = re.compile(r"^---\n", re.MULTILINE)


@dataclass(frozen=True)
class Command:
    code: int
    out: str
    err: str


@dataclass(frozen=True)
class Tool:
    """A program that takes Helm's release commands, and the testbed it works on."""

    name: str
    program: Path
    kubeconfig: Path
    env: dict[str, str]

    @property
    def quiet(self) -> tuple[str, ...]:
        """Ours says what it waits for on stderr where Helm says nothing (docs/releases.md): off,
        as the evidence after Helm's error is left out (`error_part`)."""
        return ("--no-progress",) if self.name == "deploy-runner" else ()

    def run(self, *args: str) -> Command:
        argv = [str(self.program), *args, "--kubeconfig", str(self.kubeconfig)]
        try:
            done = subprocess.run(argv, env=self.env, capture_output=True, text=True,
                                  timeout=COMMAND_TIMEOUT_SECONDS, check=False)
        except subprocess.TimeoutExpired:
            return Command(-1, "", f"{self.name} did not finish in {COMMAND_TIMEOUT_SECONDS} s")
        return Command(done.returncode, done.stdout, done.stderr)


@dataclass(frozen=True)
class Snapshot:
    """One step of one tool: what the command said, and the release as helm reads it after."""

    code: int
    output: str
    error: str
    status: str  # `deployed, revision 1: Install complete`, or helm's error when there is none
    revision: int | None
    manifest: str


@dataclass
class Journey:
    """One chart through every step with one tool."""

    chart: str
    steps: dict[str, Snapshot] = field(default_factory=dict)
    spec: dict[str, SpecOutcome] = field(default_factory=dict)  # ours: run --plan, run, diff
    second_install: str | None = None  # helm: an independent render of the install's manifest
    seconds: float = 0.0  # wall time of the whole journey

    def manifest_of(self, revision: int | None) -> str | None:
        found = [s.manifest for s in self.steps.values() if s.revision == revision]
        return found[0] if found and revision is not None else None


@dataclass(frozen=True)
class Row:
    chart: str
    step: str
    same: bool
    difference: str


@dataclass(frozen=True)
class ChartResult:
    chart: str
    rows: list[Row]
    helm_failure: str  # the first step Helm itself failed on the testbed ('' when none)
    journeys: tuple[Journey, Journey]  # helm's, ours

    def details(self, step: str) -> str:
        """Both tools' whole account of a step, for a reader finding out why it differs."""
        parts = []
        for journey_ in self.journeys:
            shot = journey_.steps.get(step)
            if shot is not None:
                parts.append(f"--- {step} by {'helm' if journey_ is self.journeys[0] else 'ours'}: "
                             f"exit {shot.code}\n[status] {shot.status}\n[stderr]\n{shot.error}\n"
                             f"[stdout]\n{shot.output}")
        return "\n".join(parts)

    @property
    def first_difference(self) -> str:
        row = next((r for r in self.rows if not r.same), None)
        return f"{row.step}: {row.difference}" if row else ""


@dataclass(frozen=True)
class Schedule:
    """Which charts run alone, and the CRDs each leaves to delete after it."""

    shared: list[str]
    exclusive: list[str]
    crds: dict[str, list[str]]


# -- the steps --------------------------------------------------------------------------------

def values_args(chart: str) -> list[str]:
    values = VALUES_DIR / f"{chart}.yaml"
    return ["-f", str(values)] if values.exists() else []


def step_args(step: str, chart: str) -> list[str]:
    """One release command; release and namespace are named after the chart."""
    path = str(corpus_chart(chart))
    common = ["-n", chart, "--timeout", TIMEOUT]
    if step == "install":
        return ["install", chart, path, *values_args(chart), "--create-namespace", *common]
    if step in ("upgrade", "upgrade again"):
        return ["upgrade", chart, path, *values_args(chart), *common]
    if step == "rollback":
        return ["rollback", chart, *common]  # to the revision before, as `helm rollback NAME` does
    return ["uninstall", chart, *common]


def journey(tool: Tool, helm: Tool, chart: str, second_render: bool) -> Journey:
    """The chart through every step with `tool`, each step read back with `helm`."""
    result = Journey(chart)
    begun = time.monotonic()
    if second_render:
        result.second_install = _dry_run_manifest(helm, chart)
    for step in RELEASE_STEPS:
        result.steps[step] = snapshot(tool, helm, chart, tool.run(*step_args(step, chart), *tool.quiet))
    if tool.name == "deploy-runner":
        result.spec = spec_outcomes(tool, helm, chart, result.steps["rollback"])
    result.steps["uninstall"] = snapshot(tool, helm, chart, tool.run(*step_args("uninstall", chart),
                                                                     *tool.quiet))
    result.seconds = time.monotonic() - begun
    return result


def _dry_run_manifest(helm: Tool, chart: str) -> str | None:
    args = step_args("install", chart)
    done = helm.run(*args, "--dry-run=server", "-o", "json")
    return json.loads(done.out).get("manifest", "") if done.code == 0 else None


def snapshot(tool: Tool, helm: Tool, chart: str, done: Command) -> Snapshot:
    read = helm.run("status", chart, "-n", chart, "-o", "json")
    if read.code != 0:
        status, revision, manifest = normalised(read.err), None, ""
    else:
        release = json.loads(read.out)
        info = release.get("info", {})
        revision = release.get("version")
        description = info.get("description", "")
        if tool.name == "deploy-runner":
            description = description.split(_EVIDENCE_SUMMARY, 1)[0]
        status = f"{info.get('status')}, revision {revision}: {normalised(description)}"
        manifest = release.get("manifest", "")
    return Snapshot(done.code, normalised(done.out), normalised(error_part(tool, done.err)), status,
                    revision, manifest)


def error_part(tool: Tool, err: str) -> str:
    """What Helm would print: ours without the evidence it adds after Helm's `Error:` line."""
    return helm_part(err)[0] if tool.name == "deploy-runner" else err


def normalised(text: str) -> str:
    """Only what must differ between the tools: the program name, times (client-go's log
    lines also carry the process id), durations."""
    text = text.replace("deploy-runner", "helm")
    text = _DEPLOYED_AT.sub("LAST DEPLOYED: <time>", text)
    text = _KLOG_HEADER.sub("<klog> ", without_watch_ended(text))
    text = _INVALID_FIELDS.sub(lambda m: m.group(1) + ", ".join(sorted(_NEXT_FIELD.split(m.group(2)))) + "]",
                               _server_order(text))
    return _DURATION.sub("<duration>", text).strip()


def _server_order(text: str) -> str:
    """The API server sends one answer's warnings in no fixed order (and a refusal's fields:
    _INVALID_FIELDS): each run of them sorted."""
    lines, run = [], []
    for line in [*text.split("\n"), ""]:
        if line.startswith("<klog> warnings.go:"):
            run.append(line)
            continue
        lines += sorted(run)
        run = []
        lines.append(line)
    return "\n".join(lines[:-1])


# -- run --plan, run, diff on the release deploy-runner made -----------------------------------

@dataclass(frozen=True)
class SpecOutcome:
    """What `run --plan`, `run` or `diff` said about the release: the objects it would change
    (or changed) as `Kind/name`, and whether a revision was written."""

    code: int
    changes: tuple[str, ...]
    status: str = ""  # the release's status in run's result
    wrote: str = ""  # `revision N` when run wrote one
    problem: str = ""  # output that is not what the command promises (a crash, a stray line)


def spec_outcomes(tool: Tool, helm: Tool, chart: str, last: Snapshot) -> dict[str, SpecOutcome]:
    """`run --plan`, `run` and `diff` against a spec for the same chart and values; none on a
    release that is not deployed."""
    if not last.status.startswith("deployed,"):
        return {}
    with tempfile.TemporaryDirectory(prefix="release-corpus-spec-") as tmp:
        spec = Path(tmp, "deploy-runner.yaml")
        release: dict[str, Any] = {"name": chart, "namespace": chart, "chart": str(corpus_chart(chart)),
                                   "timeout": TIMEOUT}
        if values_args(chart):
            release["values"] = [values_args(chart)[1]]
        spec.write_text(yaml.safe_dump({"releases": [release]}))
        found = {"run --plan": _run_outcome(tool.run("run", "--spec", str(spec), "--plan",
                                                    "--detailed-exitcode", "-o", "json"))}
        ran = _run_outcome(tool.run("run", "--spec", str(spec), "--detailed-exitcode", "-o", "json"))
        after = snapshot(tool, helm, chart, Command(0, "", ""))
        wrote = f"revision {after.revision}" if after.revision != last.revision else ""
        found["run"] = SpecOutcome(ran.code, ran.changes, ran.status, wrote, ran.problem)
    done = tool.run("diff", chart, str(corpus_chart(chart)), *values_args(chart), "-n", chart,
                    "--detailed-exitcode")
    headers = _DIFF_HEADER.findall(done.out)
    stray = [line for line in done.out.splitlines() if line and not line.startswith(" ")
             and not _DIFF_HEADER.match(line)]
    found["diff"] = SpecOutcome(done.code, tuple(sorted(f"{kind}/{name}" for name, kind in headers)),
                                problem=_first_lines(done.err if done.code not in (0, 2) else "\n".join(stray)))
    return found


def _run_outcome(done: Command) -> SpecOutcome:
    try:
        [release] = json.loads(done.out)["releases"]
    except (ValueError, KeyError, TypeError):
        return SpecOutcome(done.code, (), problem=_first_lines(done.err or done.out))
    changes = release.get("diff", {}).get("changes", [])
    return SpecOutcome(done.code, tuple(sorted(f"{c['kind']}/{c['name']}" for c in changes)),
                       str(release.get("status")),
                       problem=str(release.get("error") or "") if release.get("status") == "failed" else "")


def spec_difference(step: str, outcome: SpecOutcome | None, expected: list[str]) -> str:
    """What a user would not expect of `step`: with a chart whose upgrade Helm itself finds
    unchanged, nothing to change, no revision, an empty diff; with one Helm changes at every
    upgrade (values random at every render, no lookup), exactly the objects Helm changed."""
    if outcome is None:
        return ""
    if outcome.problem:
        return f"exit {outcome.code}: {outcome.problem}"
    if list(outcome.changes) != expected:
        return f"exit {outcome.code}: changes {_short(list(outcome.changes))}, helm's upgrade changed {_short(expected)}"
    if outcome.code != (2 if expected else 0):
        return f"exit {outcome.code} with changes {_short(expected)}"
    if step == "run" and bool(outcome.wrote) != bool(expected):
        return f"{outcome.status}: {outcome.wrote or 'no revision written'}, helm's upgrade changed {_short(expected)}"
    want = ("planned" if step == "run --plan" else "deployed") if expected else "unchanged"
    if step != "diff" and outcome.status != want:
        return f"status {outcome.status}, expected {want}"
    return ""


def _first_lines(text: str) -> str:
    return " | ".join(text.strip().splitlines()[:3])[:300]


# -- comparison ---------------------------------------------------------------------------------

def compare_chart(helm: Journey, ours: Journey) -> ChartResult:
    """One row per step, in order; and the first step Helm itself failed."""
    volatile = _install_volatility(helm)
    rows = []
    previous: dict[str, int | None] = {"helm": None, "ours": None}
    for step in RELEASE_STEPS:
        difference = compare_step(helm.steps[step], ours.steps[step], volatile) or _changes_difference(
            helm, ours, step, previous)
        previous = {"helm": helm.steps[step].revision, "ours": ours.steps[step].revision}
        rows.append(Row(helm.chart, step, not difference, difference))
    helm_upgrade = changed_objects(helm.manifest_of(helm.steps["upgrade"].revision),
                                   helm.steps["upgrade again"].manifest)
    expected = sorted({key.split(" ", 1)[-1] for key in helm_upgrade})
    for step in SPEC_STEPS:
        difference = spec_difference(step, ours.spec.get(step), expected)
        rows.append(Row(helm.chart, step, not difference, difference))
    difference = compare_step(helm.steps["uninstall"], ours.steps["uninstall"], volatile)
    rows.append(Row(helm.chart, "uninstall", not difference, difference))
    failed = next((f"{step}: {_first_lines(s.error)}" for step, s in helm.steps.items() if s.code), "")
    return ChartResult(helm.chart, rows, failed, (helm, ours))


def compare_step(helm: Snapshot, ours: Snapshot, volatile: dict[str, dict[int, str]]) -> str:
    if helm.code != ours.code:
        said = ours.error if ours.code else helm.error
        return f"exit helm={helm.code} ours={ours.code}: {_first_lines(said)}"
    for what, expected, actual in (("error", helm.error, ours.error), ("output", helm.output, ours.output)):
        if expected != actual:
            return f"{what}: {first_difference(expected, actual)}"
    if helm.status != ours.status:
        return f"status helm={helm.status[:150]!r} ours={ours.status[:150]!r}"
    return manifest_difference(helm.manifest, ours.manifest, volatile)


def documents(manifest: str) -> dict[str, str]:
    """A stored manifest's documents by `SOURCE KIND/NAME` (a repeated key gets ` #2`...)."""
    found: dict[str, str] = {}
    seen: Counter[str] = Counter()
    for text in _DOCUMENT_START.split(manifest):
        if not text.strip():
            continue
        key = _document_key(text)
        seen[key] += 1
        found[key if seen[key] == 1 else f"{key} #{seen[key]}"] = text
    return found


def _document_key(text: str) -> str:
    source = _SOURCE.search(text)
    try:
        head = yaml.load(text, Loader=yaml.CBaseLoader)
    except yaml.YAMLError:
        head = None
    if not isinstance(head, dict):
        return f"{source.group(1) if source else '?'} (no object)"
    meta = head.get("metadata") if isinstance(head.get("metadata"), dict) else {}
    return f"{source.group(1) if source else '?'} {head.get('kind')}/{meta.get('name')}"


def _install_volatility(helm: Journey) -> dict[str, dict[int, str]]:
    """Per document of Helm's install, the lines where Helm's two renders of it differ (index
    -> the second render's line). Empty for a chart whose output SOURCES.md does not list as
    nondeterministic."""
    install = helm.steps.get("install")
    if helm.second_install is None or install is None:
        return {}
    first, second = documents(install.manifest), documents(helm.second_install)
    volatile = {}
    for key, text in first.items():
        lines = volatile_lines(text, second.get(key, ""))
        if lines:
            volatile[key] = {i: pair[1] for i, pair in lines.items()}
    return volatile


def manifest_difference(helm: str, ours: str, volatile: dict[str, dict[int, str]]) -> str:
    """The first difference of our stored manifest from Helm's, document by document; a
    volatile line (at install, and at the same place in every later revision) only keeps its
    shape (tests.conformance.harness.same_shape, given Helm's line and its second render's)."""
    expected, actual = documents(helm), documents(ours)
    if list(expected) != list(actual):
        missing = [key for key in expected if key not in actual]
        extra = [key for key in actual if key not in expected]
        if missing or extra:
            return f"manifest: ours lacks {missing[:2]}, has more {extra[:2]}"
        return f"manifest: documents in another order, ours {list(actual)[:3]}"
    for key, text in expected.items():
        lines = text.split("\n")
        shapes = {i: (lines[i], other) for i, other in volatile.get(key, {}).items() if i < len(lines)}
        difference = difference_by_shape(text, actual[key], shapes)
        if difference:
            return f"manifest {key}: {difference}"
    return ""


def changed_objects(before: str | None, after: str | None) -> list[str]:
    """The documents added, removed or changed from one revision's manifest to the next."""
    if before is None or after is None:
        return []
    old, new = documents(before), documents(after)
    return sorted(key for key in old.keys() | new.keys() if old.get(key) != new.get(key))


def _changes_difference(helm: Journey, ours: Journey, step: str, previous: dict[str, int | None]) -> str:
    if step == "install":
        return ""
    theirs = changed_objects(helm.manifest_of(previous["helm"]), helm.steps[step].manifest)
    mine = changed_objects(ours.manifest_of(previous["ours"]), ours.steps[step].manifest)
    if theirs == mine:
        return ""
    return (f"changed since revision {previous['helm']}: helm={_short(theirs)} "
            f"ours={_short(mine)}")


def _short(keys: list[str]) -> str:
    return "[" + ", ".join(keys[:3]) + (f", ... {len(keys)} in all" if len(keys) > 3 else "") + "]"


# -- the schedule and the testbeds --------------------------------------------------------------

def schedule(charts: Iterable[str]) -> Schedule:
    """Charts whose render (CRDs included; helm's, from its render cache) has a kind of
    EXCLUSIVE_KINDS run alone."""
    from testbed.helm import helm_template_cached

    shared, exclusive, crds = [], [], {}
    for chart in charts:
        values = VALUES_DIR / f"{chart}.yaml"
        done = helm_template_cached(["template", chart, str(corpus_chart(chart)), "-n", chart, "--include-crds",
                                     *values_args(chart)],
                                    [corpus_chart(chart), *([values] if values.exists() else [])],
                                    timeout=COMMAND_TIMEOUT_SECONDS)
        heads = [d for d in yaml.load_all(done.stdout, Loader=yaml.CBaseLoader) if isinstance(d, dict)]
        kinds = {d.get("kind") for d in heads}
        crds[chart] = [d["metadata"]["name"] for d in heads if d.get("kind") == "CustomResourceDefinition"]
        (exclusive if kinds & EXCLUSIVE_KINDS else shared).append(chart)
    return Schedule(shared, exclusive, crds)


def run_tool(tool: Tool, helm: Tool, testbed: Any, plan: Schedule, second: set[str],
             log: Callable[[str], None]) -> dict[str, Journey]:
    """Every chart with one tool on its testbed: the shared ones a few at a time, then each
    exclusive one alone, its CRDs deleted after it."""
    with ThreadPoolExecutor(WORKERS) as pool:
        found = dict(zip(plan.shared, pool.map(
            lambda chart: journey(tool, helm, chart, chart in second), plan.shared), strict=True))
    for chart in plan.exclusive:
        found[chart] = journey(tool, helm, chart, chart in second)
        stuck = delete_crds(testbed, plan.crds[chart])
        if stuck:
            log(f"release-corpus: {tool.name}'s testbed still has {chart}'s CRDs {stuck} "
                f"after {CRD_DELETION_SECONDS} s; later charts may meet them")
    return found


def delete_crds(testbed: Any, names: list[str]) -> list[str]:
    """Delete CRDs and wait until they are gone; those still there after the wait."""
    from testbed.api import ApiClient

    api = ApiClient(testbed.server, testbed.pki)
    path = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
    for name in names:
        api.request("DELETE", path + name)
    deadline = time.monotonic() + CRD_DELETION_SECONDS
    left = list(names)
    while left and time.monotonic() < deadline:
        left = [name for name in left if api.request("GET", path + name)[0] != 404]
        time.sleep(0.5 if left else 0)
    return left


def run_suite(charts: list[str], log: Callable[[str], None] = print) -> list[ChartResult]:
    """Every chart through every step with both tools, each on a testbed of its own, side by side."""
    from testbed.helm import helm_binary

    helm_program = helm_binary()
    ours_program = Path(sys.executable).parent / "deploy-runner"
    plan = schedule(charts)
    second = nondeterministic_charts() & set(charts)
    with tempfile.TemporaryDirectory(prefix="release-corpus-home-") as home:
        env = {**os.environ, "HELM_CONFIG_HOME": f"{home}/config", "HELM_CACHE_HOME": f"{home}/cache",
               "HELM_DATA_HOME": f"{home}/data"}
        env.pop("KUBECONFIG", None)

        def helm_on(testbed: Any) -> Tool:
            return Tool("helm", helm_program, testbed.kubeconfig, env)

        def ours_on(testbed: Any) -> Tool:
            return Tool("deploy-runner", ours_program, testbed.kubeconfig, env)

        with ThreadPoolExecutor(2) as pool:
            theirs = pool.submit(on_own_testbed, helm_on, helm_on, plan, second, log)
            mine = pool.submit(on_own_testbed, ours_on, helm_on, plan, set(), log)
            journeys = theirs.result(), mine.result()
    return [compare_chart(journeys[0][chart], journeys[1][chart]) for chart in charts]


def on_own_testbed(tool_on: Callable[[Any], Tool], helm_on: Callable[[Any], Tool], plan: Schedule,
                   second: set[str], log: Callable[[str], None]) -> dict[str, Journey]:
    """A testbed started and stopped by this thread: its processes die with the thread that
    started them (testbed.processes), so the thread lives as long as the work."""
    from testbed.cluster import Testbed

    with Testbed.start(log=log) as testbed:
        return run_tool(tool_on(testbed), helm_on(testbed), testbed, plan, second, log)


def main(argv: list[str]) -> int:
    begun = time.monotonic()
    details = "--details" in argv
    charts = [arg for arg in argv if arg != "--details"] or chart_names()
    results = run_suite(charts, log=lambda message: print(message, file=sys.stderr, flush=True))
    print("chart | step | same? | first difference")
    for result in results:
        for row in result.rows:
            print(f"{row.chart} | {row.step} | {'yes' if row.same else 'no'} | {row.difference}")
    for result in results if details else []:
        for row in result.rows:
            if not row.same:
                print(f"\n=== {row.chart} | {row.step}\n{result.details(row.step)}")
    print("\nwhere Helm itself fails on the testbed:")
    for result in results:
        if result.helm_failure:
            print(f"{result.chart} | {result.helm_failure}")
    print("\nslowest charts (seconds: helm, ours):")
    for result in sorted(results, key=lambda r: -max(j.seconds for j in r.journeys))[:8]:
        print(f"{result.chart} | {result.journeys[0].seconds:.0f} | {result.journeys[1].seconds:.0f}")
    passing = [r.chart for r in results if not r.first_difference]
    print(f"\ncharts the same at every step: {len(passing)}/{len(results)}")
    print(f"wall time: {time.monotonic() - begun:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
