"""`deploy-runner diff RELEASE CHART [upgrade flags]`: what `upgrade` with the same flags would
change, object by object, without changing anything.

By default each object is dry-run applied on the server and compared with its live
copy (--view live); --view manifest compares the last stored manifest with the new
one, as `helm diff upgrade` does (and is what a live diff falls back to when it cannot
be taken). Objects are named and ordered as helm-diff names and orders them.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, exact_args

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Show what upgrading RELEASE to CHART with the given flags would change in the
cluster, without changing anything: each rendered object is dry-run applied on the
server (server-side apply with the release's field manager, or client-side apply's
three-way merge) and compared with the live object; objects the release drops are
removals. Secret values are never shown, only which keys change.
"""


def build(_name: str) -> Command:
    return Command("diff [RELEASE] [CHART]", "show what an upgrade would change", long=LONG,
                   args=exact_args(2), run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    from runner.cli.release import upgrade_flags
    from runner.cli.run import diff_flags

    upgrade_flags(fs)
    diff_flags(fs)
    fs.bool("detailed-exitcode", "exit with 2 when there are changes")
    fs.bool("include-tests", "also compare the chart's test hooks")


def handle(args: Namespace) -> int:
    import json

    from runner.actions.diff import DiffOptions, plan_release
    from runner.actions.prepare import UpgradeOptions, chart_input
    from runner.cli.cluster import action_config, command_journal
    from runner.cli.flags import print_said
    from runner.cli.release import deploy_request
    from runner.report.run import changes_text

    name, chart = args.args
    journal = command_journal(args)
    cfg = action_config(args, journal)
    request = deploy_request(args, name, chart, args.server_side, "", upgrade=UpgradeOptions(
        install=args.install, reuse_values=args.reuse_values, reset_values=args.reset_values,
        reset_then_reuse_values=args.reset_then_reuse_values))
    plan = plan_release(cfg, journal, request, chart_input(request, print_said), options=DiffOptions(
        context=args.context, view=args.view, include_tests=args.include_tests))
    data = journal.redactor.redact_data(plan.diff.to_json())
    if args.output == "table":
        if plan.action == "install":
            print(f'release "{name}" has no deployed revision: the diff is an install', file=sys.stderr)
        sys.stdout.write("".join(f"{line}\n" for line in changes_text(data, indent="")))
    else:
        from runner.cli.printers import encode_data

        sys.stdout.write(encode_data(json.loads(json.dumps(data)), args.output))
    return 2 if args.detailed_exitcode and not plan.diff.empty else 0
