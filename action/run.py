"""The action's last step: `deploy-runner action` (or the command given, as the benchmarks
and tests ask) from the action's own files, with the dependencies of the cached virtual
environment whose Python runs this (action/prepare.py). The package is the action's
checkout itself (its directory first on sys.path, as an editable install puts it), so a
`uses: ...@v1` that moves never runs a stale copy."""

import os
import sys

sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.argv = ["deploy-runner", *(sys.argv[1:] or ["action"])]

from runner.cli import main  # noqa: E402 - after the path is set

sys.exit(main())
