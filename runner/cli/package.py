"""`package` (helm package) and `push` (helm push to an OCI registry)."""

from __future__ import annotations

import argparse
import os
import sys

from runner.cli.errors import user_errors
from runner.cli.flags import DEFAULT_KEYRING, add_credential_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("package", help="package a chart directory into an archive")
    parser.add_argument("paths", nargs="*", metavar="CHART_PATH")
    parser.add_argument("--version", default="", dest="chart_version")
    parser.add_argument("--app-version", default="")
    parser.add_argument("-d", "--destination", default=".")
    parser.add_argument("-u", "--dependency-update", action="store_true")
    parser.add_argument("--sign", action="store_true")
    parser.add_argument("--key", default="")
    parser.add_argument("--keyring", default=DEFAULT_KEYRING)
    parser.add_argument("--passphrase-file", default="")
    parser.set_defaults(handler=handle_package)

    push = subparsers.add_parser("push", help="push a chart archive to an OCI registry")
    push.add_argument("args", nargs="*", metavar="CHART REMOTE")
    add_credential_flags(push)
    push.add_argument("--plain-http", action="store_true")
    push.set_defaults(handler=handle_push)


@user_errors
def handle_package(args: argparse.Namespace) -> int:
    from runner.chart.package import PackageOptions, package_chart

    if not args.paths:
        raise RunnerError("need at least one argument, the path to the chart")
    if args.sign and not args.key:
        raise RunnerError("--key is required for signing a package")
    if args.sign and not args.keyring:
        raise RunnerError("--keyring is required for signing a package")
    options = PackageOptions(args.chart_version, args.app_version, args.destination)
    for path in args.paths:
        if args.dependency_update:
            from pathlib import Path

            from runner.chart.sources.dependency import Manager

            Manager(Path(path)).update()
        saved = package_chart(path, options)
        if args.sign:
            _sign(saved, args)
        # action.Package saves to os.Getwd() for the default ".", else to -d as given.
        directory = os.getcwd() if args.destination == "." else args.destination
        shown = os.path.normpath(os.path.join(directory, saved.name))
        print(f"Successfully packaged chart and saved it to: {shown}")
    return 0


@user_errors
def handle_push(args: argparse.Namespace) -> int:
    from runner.chart.loader import load_archive_file
    from runner.chart.sources import oci
    from runner.chart.sources.errors import SourceError

    if len(args.args) != 2:
        raise RunnerError('"helm push" requires at least 2 arguments\n\nUsage:  helm push [chart] [remote] [flags]')
    chart_path, remote = args.args
    if not oci.is_oci(remote):
        raise SourceError(f"scheme prefix missing from remote (e.g. \"{oci.SCHEME}\")")
    from pathlib import Path

    if not Path(chart_path).exists():
        raise RunnerError(f"{chart_path}: no such file")
    chart = load_archive_file(Path(chart_path))
    options = oci.OciOptions(args.plain_http, args.insecure_skip_tls_verify, args.ca_file,
                             args.cert_file, args.key_file, args.username, args.password)
    prov_path = Path(f"{chart_path}.prov")
    prov = prov_path.read_bytes() if prov_path.is_file() else None
    pushed = oci.push(Path(chart_path).read_bytes(), chart.metadata, remote, options, prov)
    print(f"Pushed: {pushed.reference}\nDigest: {pushed.manifest_digest}", file=sys.stderr)
    return 0


def _sign(archive: Any, args: argparse.Namespace) -> None:
    from pathlib import Path

    from runner.chart.sources.provenance import sign_chart

    passphrase = None
    if args.passphrase_file:
        source = sys.stdin if args.passphrase_file == "-" else open(args.passphrase_file)  # noqa: SIM115
        with source:
            passphrase = source.readline().rstrip("\r\n")
    sign_chart(Path(archive), args.key, Path(args.keyring), passphrase)
