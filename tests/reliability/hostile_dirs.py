"""Malicious chart directories (for `package` and the commands that read a directory):
links out of the chart, to devices, in loops and to nowhere; FIFOs; a file over 5 MiB;
names that are not UTF-8. Each writes the case under `root` and returns the chart's path."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from tests.reliability.hostile_archives import CHART_YAML, TEMPLATE, VALUES


def _base(root: Path) -> Path:
    chart = root / "hostile"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_bytes(CHART_YAML)
    (chart / "values.yaml").write_bytes(VALUES)
    (chart / "templates" / "cm.yaml").write_bytes(TEMPLATE)
    return chart


def _with(change: Callable[[Path], object]) -> Callable[[Path], Path]:
    def make(root: Path) -> Path:
        chart = _base(root)
        change(chart)
        return chart
    return make


def _outside_file(chart: Path) -> Path:
    secret = chart.parent / "outside.txt"
    secret.write_text("outside the chart\n")
    return secret


DIRECTORIES: dict[str, Callable[[Path], Path]] = {
    "valid": _with(lambda c: None),
    "symlink to a file outside": _with(lambda c: (c / "files").mkdir() or (c / "files" / "o.txt").symlink_to(_outside_file(c))),
    "symlink to a directory outside": _with(lambda c: (c / "linked").symlink_to(c.parent / "hostile-outside", target_is_directory=True)
                                            if (c.parent / "hostile-outside").mkdir() or (c.parent / "hostile-outside" / "x.txt").write_text("x") else None),
    "symlink to /dev/zero": _with(lambda c: (c / "templates" / "zero.yaml").symlink_to("/dev/zero")),
    "symlink to /dev/null": _with(lambda c: (c / "templates" / "null.yaml").symlink_to("/dev/null")),
    "symlink loop": _with(lambda c: (c / "loop").symlink_to(c, target_is_directory=True)),
    "broken symlink": _with(lambda c: (c / "templates" / "gone.yaml").symlink_to(c / "nowhere")),
    "fifo": _with(lambda c: os.mkfifo(c / "templates" / "fifo.yaml")),
    "file over 5 MiB": _with(lambda c: (c / "big.bin").write_bytes(b"\0" * (5 * 1024 * 1024 + 1))),
    "non-UTF-8 name": _with(lambda c: (c / os.fsdecode(b"templates/\xff.yaml")).write_bytes(TEMPLATE.replace(b"{{ .Release.Name }}", b"x2"))),
}
