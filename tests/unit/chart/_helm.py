"""Scratch charts and the real Helm 4.1.4 binary, offline (`helm template`)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from testbed.helm import helm_binary


@dataclass
class HelmRun:
    returncode: int
    stdout: str
    stderr: str

    @property
    def error(self) -> str:
        """Helm's error text without the `Error: ` prefix."""
        lines = [line for line in self.stderr.splitlines() if line.startswith("Error: ")]
        return lines[-1].removeprefix("Error: ") if lines else ""

    @property
    def log_lines(self) -> list[str]:
        """slog lines (`level=... msg=...`), sorted: Helm's Go map order is random."""
        return sorted(line for line in self.stderr.splitlines() if line.startswith("level="))

    def document(self, template: str) -> str:
        """The body Helm printed for one template (after its `# Source:` line)."""
        marker = f"/{template}\n"
        body = self.stdout.split(marker, 1)[1]
        return body.split("\n---\n", 1)[0].rstrip("\n")


def helm_template(chart: Path, *args: str) -> HelmRun:
    proc = subprocess.run(
        [str(helm_binary()), "template", "rel", str(chart), "--namespace", "ns", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    return HelmRun(proc.returncode, proc.stdout, proc.stderr)


def write_chart(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write a chart tree; `Chart.yaml` defaults to a minimal v2 chart named after the dir."""
    root.mkdir(parents=True, exist_ok=True)
    if "Chart.yaml" not in files:
        files = {"Chart.yaml": f"apiVersion: v2\nname: {root.name}\nversion: 0.1.0\n", **files}
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root
