"""`pull` (Helm's action.Pull) and the chart-source options from its flags (runner.actions.flags)."""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable
from pathlib import Path

from runner.actions.flags import DEFAULT_KEYRING, add_source_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.chart.sources.downloader import SourceOptions


def source_options(args: argparse.Namespace) -> SourceOptions:
    from runner.chart.sources.downloader import SourceOptions

    version = getattr(args, "chart_version", "") or ""
    if not version and getattr(args, "devel", False):
        version = ">0.0.0-0"  # Helm: --devel admits pre-releases unless --version is given
    return SourceOptions(
        version=version, repo_url=args.repo_url,
        username=args.username, password=args.password, ca_file=args.ca_file,
        cert_file=args.cert_file, key_file=args.key_file,
        insecure_skip_tls_verify=args.insecure_skip_tls_verify,
        pass_credentials_all=args.pass_credentials, plain_http=args.plain_http,
        verify=getattr(args, "verify", False), keyring=getattr(args, "keyring", DEFAULT_KEYRING),
    )


def user_errors(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """File-system failures read as Go's (`open PATH: no such file or directory`), never a traceback."""

    @functools.wraps(handler)
    def guarded(args: argparse.Namespace) -> int:
        try:
            return handler(args)
        except OSError as err:
            if getattr(args, "debug", False):
                raise
            reason = (err.strerror or str(err)).lower()
            raise RunnerError(f"open {err.filename}: {reason}" if err.filename else reason) from err

    return guarded


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("pull", help="download a chart from a repository (as helm pull)")
    parser.add_argument("charts", nargs="*", metavar="CHART")
    parser.add_argument("-d", "--destination", default=".")
    parser.add_argument("--untar", action="store_true")
    parser.add_argument("--untardir", default=".")
    parser.add_argument("--prov", action="store_true")
    add_source_flags(parser)
    parser.set_defaults(handler=handle)
    verify = subparsers.add_parser("verify", help="verify a chart archive against its .prov file")
    verify.add_argument("paths", nargs="*", metavar="PATH")
    verify.add_argument("--keyring", default=DEFAULT_KEYRING)
    verify.set_defaults(handler=handle_verify)


@user_errors
def handle(args: argparse.Namespace) -> int:
    if not args.charts:
        raise RunnerError('"helm pull" requires at least 1 argument\n\n'
                          "Usage:  helm pull [chart URL | repo/chartname] [...] [flags]")
    for chart in args.charts:
        pull(chart, args)
    return 0


@user_errors
def handle_verify(args: argparse.Namespace) -> int:
    """helm verify PATH: the archive's .prov beside it, checked against --keyring."""
    from runner.chart.sources.provenance import verify_chart

    if len(args.paths) != 1:
        raise RunnerError('"helm verify" requires 1 argument\n\nUsage:  helm verify PATH [flags]')
    archive = Path(args.paths[0])
    print(verify_chart(archive, Path(f"{archive}.prov"), Path(args.keyring)).report(), end="")
    return 0


def pull(chart_ref: str, args: argparse.Namespace) -> None:
    from runner.chart.sources.downloader import fetch_chart
    from runner.chart.sources.paths import HelmPaths

    with_prov = args.verify or args.prov
    download = fetch_chart(chart_ref, source_options(args), HelmPaths.from_env(), with_prov=with_prov)
    if not args.untar:  # Helm saves the archive before it looks at the provenance
        os.makedirs(args.destination, exist_ok=True)
        Path(args.destination, download.file_name).write_bytes(download.data)
    if args.verify:
        print(verify_download(download, args.keyring), end="")
    elif args.prov and download.prov is None:
        print(f"WARNING: Verification not found for {chart_ref}: {download.prov_error}")
    if args.untar:
        untar(download.data, chart_ref, args)
    elif download.prov is not None:
        Path(args.destination, download.file_name + ".prov").write_bytes(download.prov)


def verify_download(download: Any, keyring: str) -> str:
    """pull --verify: check the .prov signature and the archive's hash; Helm's report."""
    from runner.chart.sources.downloader import verify_download as verify

    return verify(download, keyring)


def untar(data: bytes, chart_ref: str, args: argparse.Namespace) -> None:
    """Pull --untar: refuse an existing target, then expand through the safe archive reader."""
    from runner.chart import archive
    from runner.chart.loader import load_archive_bytes

    target = args.untardir if os.path.isabs(args.untardir) else os.path.join(args.destination, args.untardir)
    target = os.path.normpath(target)
    base = chart_ref.rsplit("/", 1)[-1]  # filepath.Split: a reference's tag or digest stays
    check = os.path.join(target, base) if target != "." else base
    if os.path.exists(check):
        raise RunnerError(f"failed to untar: a file or directory with the name {check} already exists")
    os.makedirs(check)  # Helm makes it even when the chart's own name differs
    files = archive.read_archive(data, chart_ref)
    name = load_archive_bytes(data, chart_ref).name()  # chartutil.Expand names the directory after Chart.yaml
    if not name or name != os.path.basename(name) or name in (".", ".."):
        raise RunnerError(f"chart name {name!r} is not a valid directory name")
    os.makedirs(os.path.join(target, name), exist_ok=True)
    archive.extract(files, Path(target, name))


def update_missing_dependencies(chart: Any, path: str, args: argparse.Namespace, out: Any) -> Any:
    """Install/template --dependency-update: when charts/ lacks a declared dependency,
    run `dependency update` on the chart directory and load it again."""
    from runner.chart.dependencies import check_dependencies
    from runner.chart.errors import DependencyError
    from runner.chart.loader import load_chart
    from runner.chart.sources.dependency import Manager
    from runner.chart.sources.paths import HelmPaths

    try:
        check_dependencies(chart)
        return chart
    except DependencyError:
        pass
    Manager(Path(path), source_options(args), HelmPaths.from_env(), out=out).update()
    return load_chart(path)
