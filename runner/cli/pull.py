"""`pull` (alias `fetch`, over runner.actions.pull) and `verify`, as Helm's."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, exact_args, minimum_args
from runner.cli.errors import user_errors
from runner.cli.flags import chart_path_flags, default_keyring, print_said, source_options

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

PULL_LONG = """
Retrieve a package from a package repository, and download it locally.

This is useful for fetching packages to inspect, modify, or repackage. It can
also be used to perform cryptographic verification of a chart without installing
the chart.

There are options for unpacking the chart after download. This will create a
directory for the chart and uncompress into that directory.

If the --verify flag is specified, the requested chart MUST have a provenance
file, and MUST pass the verification process. Failure in any part of this will
result in an error, and the chart will not be saved locally.
"""
VERIFY_LONG = """
Verify that the given chart has a valid provenance file.

Provenance files provide cryptographic verification that a chart has not been
tampered with, and was packaged by a trusted provider.

This command can be used to verify a local chart. Several other commands provide
'--verify' flags that run the same validation. To generate a signed package, use
the 'helm package --sign' command.
"""


def build(name: str) -> Command:
    if name == "verify":
        return Command("verify PATH", "verify that a chart at the given path has been signed and is valid",
                       long=VERIFY_LONG, args=exact_args(1), run=handle_verify, flags=_verify_flags)
    return Command("pull [chart URL | repo/chartname] [...]",
                   "download a chart from a repository and (optionally) unpack it in local directory",
                   long=PULL_LONG, aliases=("fetch",), args=minimum_args(1), run=handle, flags=_pull_flags)


def _pull_flags(fs: FlagSet) -> None:
    fs.bool("untar", "if set to true, will untar the chart after downloading it")
    fs.string("untardir", "if untar is specified, this flag specifies the name of the directory into which "
              "the chart is expanded", default=".")
    fs.string("destination", "location to write the chart. If this and untardir are specified, untardir is "
              "appended to this", default=".", short="d")
    fs.bool("prov", "fetch the provenance file, but don't perform verification")
    chart_path_flags(fs, devel_note=".")


def _verify_flags(fs: FlagSet) -> None:
    fs.string("keyring", "keyring containing public keys", default=default_keyring())


@user_errors
def handle(args: Namespace) -> int:
    from runner.actions.pull import PullOptions, pull

    opts = PullOptions(source_options(args), destination=args.destination, untar=args.untar,
                       untardir=args.untardir, prov=args.prov)
    for chart in args.args:
        pull(chart, opts, on_message=sys.stdout.write, say=print_said)
    return 0


@user_errors
def handle_verify(args: Namespace) -> int:
    """helm verify PATH: the archive's .prov beside it, checked against --keyring."""
    from runner.chart.sources.provenance import verify_chart

    archive = Path(args.args[0])
    sys.stdout.write(verify_chart(archive, Path(f"{archive}.prov"), Path(args.keyring)).report())
    return 0
