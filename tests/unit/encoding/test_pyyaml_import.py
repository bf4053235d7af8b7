"""runner.encoding imports PyYAML with its import-time patterns compiled on first use."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import runner.encoding
import json.scanner, re, yaml
from runner.lazy_pattern import LazyPattern

assert isinstance(yaml.reader.Reader.NON_PRINTABLE, LazyPattern)  # not compiled at import
assert isinstance(re.compile("a"), re.Pattern) and isinstance(json.scanner.NUMBER_RE, re.Pattern)
loaded = yaml.safe_load("t: 2001-12-14t21:59:43.10-05:00\\nb: yes\\nn: 0x1F\\nf: 1.5e+3\\nz: ~\\n")
assert str(loaded["t"]) == "2001-12-14 21:59:43.100000-05:00", loaded
assert (loaded["b"], loaded["n"], loaded["f"], loaded["z"]) == (True, 31, 1500.0, None), loaded
assert yaml.load("x: \\u00e9\\n", Loader=yaml.Loader) == {"x": "\\u00e9"}
print("ok")
"""


def test_pyyaml_works_through_its_deferred_patterns_and_nothing_else_is_deferred() -> None:
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=False)
    assert (out.returncode, out.stdout.strip()) == (0, "ok"), out.stderr
