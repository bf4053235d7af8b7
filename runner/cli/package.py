"""`package` (helm package) and `push` (helm push to an OCI registry)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, minimum_args
from runner.cli.errors import user_errors
from runner.cli.flags import credential_flags, default_keyring, print_said, tls_flags
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

PACKAGE_LONG = """
This command packages a chart into a versioned chart archive file. If a path
is given, this will look at that path for a chart (which must contain a
Chart.yaml file) and then package that directory.

Versioned chart archives are used by Helm package repositories.

To sign a chart, use the '--sign' flag. In most cases, you should also
provide '--keyring path/to/secret/keys' and '--key keyname'.
"""
PUSH_LONG = """
Upload a chart to a registry.

If the chart has an associated provenance file,
it will also be uploaded.
"""


def build(name: str) -> Command:
    if name == "push":
        return Command("push [chart] [remote]", "push a chart to remote", long=PUSH_LONG,
                       args=minimum_args(2), run=handle_push, flags=_push_flags)
    return Command("package [CHART_PATH] [...]", "package a chart directory into a chart archive",
                   long=PACKAGE_LONG, run=handle_package, flags=_package_flags)


def _package_flags(fs: FlagSet) -> None:
    fs.bool("sign", "use a PGP private key to sign this package")
    fs.string("key", "name of the key to use when signing. Used if --sign is true")
    fs.string("keyring", "location of a public keyring", default=default_keyring())
    fs.string("passphrase-file", 'location of a file which contains the passphrase for the signing key. Use '
              '"-" in order to read from stdin.')
    fs.string("version", "set the version on the chart to this semver version", dest="chart_version")
    fs.string("app-version", "set the appVersion on the chart to this version")
    fs.string("destination", "location to write the chart.", default=".", short="d")
    fs.bool("dependency-update", 'update dependencies from "Chart.yaml" to dir "charts/" before packaging',
            short="u")


def _push_flags(fs: FlagSet) -> None:
    tls_flags(fs, what="chart upload", client="registry client")
    fs.bool("plain-http", "use insecure HTTP connections for the chart upload")
    credential_flags(fs)


@user_errors
def handle_package(args: Namespace) -> int:
    from runner.chart.package import PackageOptions, package_chart

    if not args.args:
        raise RunnerError("need at least one argument, the path to the chart")
    if args.sign and not args.key:
        raise RunnerError("--key is required for signing a package")
    if args.sign and not args.keyring:
        raise RunnerError("--keyring is required for signing a package")
    options = PackageOptions(args.chart_version, args.app_version, args.destination)
    for path in args.args:
        if args.dependency_update:
            from pathlib import Path

            from runner.chart.sources.dependency import Manager

            Manager(Path(path), say=print_said).update()
        saved = package_chart(path, options, lambda line: print(line, file=sys.stderr))
        if args.sign:
            _sign(saved, args)
        # action.Package saves to os.Getwd() for the default ".", else to -d as given.
        directory = os.getcwd() if args.destination == "." else args.destination
        shown = os.path.normpath(os.path.join(directory, saved.name))
        print(f"Successfully packaged chart and saved it to: {shown}")
    return 0


@user_errors
def handle_push(args: Namespace) -> int:
    from runner.chart.loader import load_archive_file
    from runner.chart.sources import oci
    from runner.chart.sources.errors import SourceError

    chart_path, remote = args.args[:2]
    if not oci.is_oci(remote):
        raise SourceError(f"scheme prefix missing from remote (e.g. \"{oci.SCHEME}\")")
    from pathlib import Path

    if not Path(chart_path).exists():
        raise RunnerError(f"{chart_path}: no such file")
    chart = load_archive_file(Path(chart_path))
    options = oci.OciOptions(plain_http=args.plain_http, insecure_skip_tls_verify=args.insecure_skip_tls_verify,
                             ca_file=args.ca_file, cert_file=args.cert_file, key_file=args.key_file,
                             username=args.username, password=args.password)
    prov_path = Path(f"{chart_path}.prov")
    prov = prov_path.read_bytes() if prov_path.is_file() else None
    pushed = oci.push(Path(chart_path).read_bytes(), chart.metadata, remote, options, prov)
    print(f"Pushed: {pushed.reference}\nDigest: {pushed.manifest_digest}", file=sys.stderr)
    return 0


def _sign(archive: Any, args: Namespace) -> None:
    from pathlib import Path

    from runner.chart.sources.provenance import sign_chart

    passphrase = None
    if args.passphrase_file:
        source = sys.stdin if args.passphrase_file == "-" else open(args.passphrase_file)  # noqa: SIM115
        with source:
            passphrase = source.readline().rstrip("\r\n")
    sign_chart(Path(archive), args.key, Path(args.keyring), passphrase)
