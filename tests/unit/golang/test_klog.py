"""runner.golang.klog: client-go's log line as Helm 4.1.4 prints an API server warning on the
testbed (`I1129 08:46:59.107794   16232 warnings.go:107] "Warning: unrecognized format \"int64\""`)."""

from __future__ import annotations

from datetime import datetime

from runner.golang.klog import info_line


def test_a_line_as_helm_prints_it() -> None:
    when = datetime(2026, 11, 29, 8, 46, 59, 107794)
    assert info_line("warnings.go:107", 'Warning: unrecognized format "int64"', when, 16232) == (
        'I1129 08:46:59.107794   16232 warnings.go:107] "Warning: unrecognized format \\"int64\\""')
    assert info_line("warnings.go:107", "x", datetime(2026, 1, 2, 3, 4, 5, 6), 1234567) == (
        'I0102 03:04:05.000006 1234567 warnings.go:107] "x"')
