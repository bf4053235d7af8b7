from datetime import datetime

from runner.golang.klog import info_s


def test_an_info_line_has_klogs_header_and_the_quoted_message():
    line = info_s('Warning: unknown field "spec.color"', "warnings.go:107",
                  datetime(2026, 11, 29, 8, 3, 18, 971114), 10792)
    # As Helm 4.1.4 printed it on the testbed (the time and process id were its own).
    assert line == 'I1129 08:03:18.971114   10792 warnings.go:107] "Warning: unknown field \\"spec.color\\""'


def test_the_process_id_is_right_aligned_in_seven_columns():
    assert info_s("m", "f.go:1", datetime(2026, 1, 2, 3, 4, 5, 6), 42).startswith(
        "I0102 03:04:05.000006      42 f.go:1] ")
