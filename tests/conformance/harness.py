"""Chart conformance: `helm template` (Helm 4.1.4) and ours on the same chart and flags.

Nothing expected is written down: Helm renders every chart. Its output is kept in
the render cache under the user's cache directory (testbed.helm.helm_template_cached:
keyed by Helm's version, the arguments, the chart's and values' bytes), so a run only
renders what changed; a case that differs from the cached output is checked again
against Helm run now, so a difference is always Helm's of this moment. Charts that
SOURCES.md lists as nondeterministic are rendered twice by Helm; a line that
differs between Helm's own two runs is volatile, and ours must only keep its
shape there (same key, same length when Helm's lengths agree, same alphabet).
Every other byte must be identical, stdout and (on failure) stderr.

`python -m tests.conformance.harness [CHART...]` prints
`chart | docs | identical | first difference`.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from testbed.helm import helm_template_cached
from tests.corpus import CHARTS_DIR, VALUES_DIR, chart_names

RELEASE = "rel"
NAMESPACE = "ns"
_NONDETERMINISTIC = re.compile(r"^- ([\w.-]+): content", re.MULTILINE)
_WORDS = re.compile(r"[^\s,]+")
_KEY = re.compile(r"^(\s*(?:- )?[^:\s][^:]*:)\s*(.*)$")


@dataclass(frozen=True)
class Run:
    stdout: str
    stderr: str
    code: int

    def shown(self) -> str:
        """What a user sees: stdout, then stderr (warnings, errors) and a non-zero exit code."""
        text = self.stdout
        if self.stderr:
            text += f"\n[stderr]\n{self.stderr}"
        return text if self.code == 0 else f"{text}\n[exit {self.code}]"


@dataclass(frozen=True)
class Comparison:
    chart: str
    docs: int
    identical: bool
    first_difference: str


def nondeterministic_charts() -> set[str]:
    text = (CHARTS_DIR / "SOURCES.md").read_text(encoding="utf-8")
    section = text.split("## Nondeterministic charts", 1)[-1]
    return set(_NONDETERMINISTIC.findall(section))


def template_args(chart: str, extra: tuple[str, ...] = ()) -> list[str]:
    args = ["template", RELEASE, str(CHARTS_DIR / chart), "--namespace", NAMESPACE]
    values = VALUES_DIR / f"{chart}.yaml"
    if values.exists():
        args += ["-f", str(values)]
    return args + list(extra)


def run_helm(helm: Path, chart: str, extra: tuple[str, ...] = (), *, sample: int | None = None) -> Run:
    """`helm template` of a corpus chart: run now, or (`sample` N) Helm's N-th run of the same
    arguments from the render cache, rendered on first use."""
    args = template_args(chart, extra)
    if sample is None:
        proc = subprocess.run([str(helm), *args], capture_output=True, text=True, check=False, timeout=300)
    else:
        values = VALUES_DIR / f"{chart}.yaml"
        proc = helm_template_cached(args, [CHARTS_DIR / chart, *([values] if values.exists() else [])],
                                    sample=sample)
    return Run(proc.stdout, proc.stderr, proc.returncode)


def run_cli(argv: list[str], program: str = "helm") -> tuple[bytes, str, int]:
    """Our CLI in process, exactly as a user would call it: stdout as bytes (commands that
    print files write them raw), stderr, exit code. A crash is a difference, not an error.
    `program` is the name it runs under: `helm` (as a link so named), the name in the Helm
    messages it is compared with."""
    from runner.cli import main

    raw, err = io.BytesIO(), io.StringIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv, program=program)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except Exception as exc:  # noqa: BLE001
            err.write(f"internal error: {type(exc).__name__}: {exc}\n")
            code = 99
        out.flush()
    return raw.getvalue(), err.getvalue(), code


def run_ours(chart: str, extra: tuple[str, ...] = ()) -> Run:
    """`template` for a corpus chart, in process."""
    out, err, code = run_cli(template_args(chart, extra))
    return Run(out.decode("utf-8", "surrogateescape"), err, code)


def volatile_lines(first: str, second: str) -> dict[int, tuple[str, str]] | None:
    """Line numbers that differ between two Helm runs; None if they do not align."""
    a, b = first.split("\n"), second.split("\n")
    if len(a) != len(b):
        return None
    return {i: (x, y) for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y}


def _alphabet(text: str) -> str:
    if re.fullmatch(r"[0-9a-f]*", text):
        return "hex"
    if re.fullmatch(r"[A-Za-z0-9]*", text):
        return "alnum"
    if re.fullmatch(r"[A-Za-z0-9+/=\"']*", text):
        return "base64"
    return "other"


def same_shape(ours: str, helm_a: str, helm_b: str) -> bool:
    """A volatile line: same key; PEM stays PEM that parses; else same alphabet (and length
    when Helm's two runs agree on it)."""
    mo, ma, mb = _KEY.match(ours), _KEY.match(helm_a), _KEY.match(helm_b)
    if mo and ma and mb:
        if mo.group(1) != ma.group(1):
            return False
        vo, va, vb = mo.group(2), ma.group(2), mb.group(2)
    else:
        vo, va, vb = ours.strip(), helm_a.strip(), helm_b.strip()
    if sorted(_WORDS.findall(vo)) == sorted(_WORDS.findall(va)):  # same words, another (map) order
        return True
    pem = _pem_header(va)
    if pem is not None:
        return pem == _pem_header(vo) and _pem_parses(vo)
    if len(va) == len(vb) and len(vo) != len(va):
        return False
    return _alphabet(vo) in {_alphabet(va), _alphabet(vb)}


def _pem_bytes(value: str) -> bytes | None:
    text = value.strip("\"'")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return data if data.startswith(b"-----BEGIN ") else None


def _pem_header(value: str) -> bytes | None:
    data = _pem_bytes(value)
    return data.split(b"\n", 1)[0] if data is not None else None


def _pem_parses(value: str) -> bool:
    """A generated certificate or key must load with the cryptography package."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    data = _pem_bytes(value) or b""
    try:
        if b"CERTIFICATE" in data.split(b"\n", 1)[0]:
            x509.load_pem_x509_certificate(data)
        else:
            serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        return False
    return True


def first_difference(expected: str, actual: str) -> str:
    """`line N: helm=... ours=...` for the first differing line, or ''."""
    a, b = expected.split("\n"), actual.split("\n")
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<end>"
        y = b[i] if i < len(b) else "<end>"
        if x != y:
            return f"line {i + 1}: helm={x[:100]!r} ours={y[:100]!r}"
    return ""


def compare(chart: str, helm_runs: list[Run], ours: Run) -> Comparison:
    expected = helm_runs[0].shown()
    actual = ours.shown()
    docs = helm_runs[0].stdout.count("# Source: ")
    if expected == actual:
        return Comparison(chart, docs, True, "")
    if ours.code != helm_runs[0].code:
        reason = (ours.stderr if ours.code else helm_runs[0].stderr).strip().splitlines() or [""]
        return Comparison(chart, docs, False, f"exit helm={helm_runs[0].code} ours={ours.code}: "
                          f"{reason[0][:200]}")
    if len(helm_runs) < 2:
        return Comparison(chart, docs, False, first_difference(expected, actual))
    volatile = volatile_lines(expected, helm_runs[1].shown())
    if volatile is None:
        return Comparison(chart, docs, False, "Helm's two runs do not align; "
                          + first_difference(expected, actual))
    difference = difference_by_shape(expected, actual, volatile)
    return Comparison(chart, docs, not difference, difference)


def difference_by_shape(expected: str, actual: str, volatile: dict[int, tuple[str, str]]) -> str:
    """The first difference of `actual` from Helm's `expected` that volatility does not explain
    (a volatile line only keeps its shape: `same_shape`), or ''."""
    a, b = expected.split("\n"), actual.split("\n")
    if len(a) != len(b):
        return first_difference(expected, actual)
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x == y:
            continue
        if i in volatile and same_shape(y, *volatile[i]):
            continue
        return f"line {i + 1}: helm={x[:100]!r} ours={y[:100]!r}"
    return ""


def check_chart(helm: Path, chart: str, extra: tuple[str, ...] = ()) -> Comparison:
    """Ours against Helm's cached runs; a difference is checked again against Helm run now."""
    ours = run_ours(chart, extra)
    samples = 2 if chart in nondeterministic_charts() else 1
    cached = compare(chart, [run_helm(helm, chart, extra, sample=n) for n in range(samples)], ours)
    if cached.identical:
        return cached
    runs = [run_helm(helm, chart, extra) for _ in range(samples)]
    result = compare(chart, runs, ours)
    for _ in range(3 if not result.identical and len(runs) == 1 else 0):
        # Helm itself may vary here (Go map order in some messages): more runs tell.
        again = run_helm(helm, chart, extra)
        if again.shown() != runs[0].shown():
            return compare(chart, [*runs, again], ours)
    return result


# Flag variants every chart is also rendered with (issue 4): CRDs, capabilities
# that switch on optional resources, upgrade without tests, no hooks, common toggles.
VARIANTS: dict[str, tuple[str, ...]] = {
    "include-crds": ("--include-crds",),
    "capabilities": ("--kube-version", "1.30.2", "--api-versions", "monitoring.coreos.com/v1",
                     "--api-versions", "autoscaling.k8s.io/v1"),
    "upgrade-skip-tests": ("--is-upgrade", "--skip-tests"),
    "no-hooks": ("--no-hooks",),
    "toggles": ("--set", "ingress.enabled=true", "--set", "serviceAccount.create=false",
                "--set", "autoscaling.enabled=true", "--set-string", "podAnnotations.x=1"),
}
_FIRST_SOURCE = re.compile(r"^# Source: [^/]+/(.+)$", re.MULTILINE)


def check_variant(helm: Path, chart: str, variant: str) -> Comparison:
    """One chart with one flag variant; `show-only` and `output-dir` are derived per chart."""
    if variant == "output-dir":
        return check_output_dir(helm, chart)
    if variant == "show-only":
        sources = _FIRST_SOURCE.findall(run_helm(helm, chart, sample=0).stdout)
        extra = ("--show-only", sources[-1]) if sources else ("--show-only", "templates/none.yaml")
        return check_chart(helm, chart, extra)
    return check_chart(helm, chart, VARIANTS[variant])


def variant_names() -> list[str]:
    return [*VARIANTS, "show-only", "output-dir"]


def check_output_dir(helm: Path, chart: str) -> Comparison:
    """--output-dir: the same `wrote` lines and the same file tree, byte for byte."""
    with tempfile.TemporaryDirectory(prefix="conf-outdir-") as tmp:
        dirs = [Path(tmp, "helm-a"), Path(tmp, "helm-b"), Path(tmp, "ours")]
        printed = run_helm(helm, chart, ("--output-dir", str(dirs[0])))
        trees = [Run(_tree_text(dirs[0]), "", 0)]
        if chart in nondeterministic_charts():
            run_helm(helm, chart, ("--output-dir", str(dirs[1])))
            trees.append(Run(_tree_text(dirs[1]), "", 0))
        ours = run_ours(chart, ("--output-dir", str(dirs[2])))
        ours = Run(ours.stdout.replace(str(dirs[2]), str(dirs[0])),
                   ours.stderr.replace(str(dirs[2]), str(dirs[0])), ours.code)
        stdout = compare(chart, [printed], ours)
        tree = compare(chart, trees, Run(_tree_text(dirs[2]), "", 0))
    return stdout if not stdout.identical else tree


def _tree_text(root: Path) -> str:
    """Every file under root as `== relative/path` and its bytes, in sorted order."""
    if not root.exists():
        return "<no directory>"
    parts = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        parts.append(f"== {path.relative_to(root)}\n{path.read_text(errors='surrogateescape')}")
    return "\n".join(parts)


def main(argv: list[str]) -> int:
    from testbed.helm import helm_binary

    helm = helm_binary()
    names = argv or chart_names()
    rows = [check_chart(helm, name) for name in names]
    print("chart | docs | identical | first difference")
    for row in rows:
        print(f"{row.chart} | {row.docs} | {'yes' if row.identical else 'no'} | {row.first_difference}")
    same = sum(r.identical for r in rows)
    print(f"identical: {same}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
