"""`deploy-runner schema`: the JSON Schema of a spec, for editors and validators."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, no_args

if TYPE_CHECKING:
    from runner.cli.pflag import Namespace

LONG = """
Print the JSON Schema (draft 2020-12) of a deploy-runner spec. Editors use it to
complete and check deploy-runner.yaml as it is typed: see docs/spec.md, "Editor
support".
"""


def build(_name: str) -> Command:
    return Command("schema", "print the JSON Schema of a spec (deploy-runner.yaml)", long=LONG,
                   args=no_args, run=handle)


def handle(_args: Namespace) -> int:
    import json

    from runner.spec.load import json_schema

    sys.stdout.write(json.dumps(json_schema(), indent=2) + "\n")
    return 0
