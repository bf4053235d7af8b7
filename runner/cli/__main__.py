"""`python -m runner.cli`: the deploy-runner program."""

import sys

from runner.cli import main

sys.exit(main())
