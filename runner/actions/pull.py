"""Helm's action.Pull, and the chart-source options from the flags of runner.cli.flags."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.chart.sources.downloader import SourceOptions


def source_options(args: Any) -> SourceOptions:
    """The chart-source settings of parsed chart-location flags (runner.cli.flags.chart_path_flags)."""
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
        verify=getattr(args, "verify", False), keyring=getattr(args, "keyring", ""),
    )


def pull(chart_ref: str, args: Any, on_message: Callable[[str], None]) -> None:
    """Download `chart_ref` into --destination (or expand it with --untar); the verification
    report or a missing provenance's warning goes to `on_message`."""
    from runner.chart.sources.downloader import fetch_chart
    from runner.chart.sources.fileutil import atomic_write_file
    from runner.chart.sources.paths import HelmPaths

    with_prov = args.verify or args.prov
    download = fetch_chart(chart_ref, source_options(args), HelmPaths.from_env(), with_prov=with_prov)
    if not args.untar:  # Helm saves the archive before it looks at the provenance
        # DownloadTo: into an existing --destination only (AtomicWriteFile), mode 0644
        atomic_write_file(os.path.join(args.destination, download.file_name), download.data, 0o644)
    if args.verify:
        on_message(verify_download(download, args.keyring))
    elif args.prov and download.prov is None:
        on_message(f"WARNING: Verification not found for {chart_ref}: {download.prov_error}\n")
    if args.untar:
        untar(download.data, chart_ref, args)
    elif download.prov is not None:
        atomic_write_file(os.path.join(args.destination, download.file_name + ".prov"), download.prov, 0o644)


def verify_download(download: Any, keyring: str) -> str:
    """pull --verify: check the .prov signature and the archive's hash; Helm's report."""
    from runner.chart.sources.downloader import verify_download as verify

    return verify(download, keyring)


def untar(data: bytes, chart_ref: str, args: Any) -> None:
    """Pull --untar: refuse an existing target, then expand through the safe archive reader."""
    from runner.chart import archive

    target = args.untardir if os.path.isabs(args.untardir) else os.path.join(args.destination, args.untardir)
    target = os.path.normpath(target)
    base = chart_ref.rsplit("/", 1)[-1]  # filepath.Split: a reference's tag or digest stays
    check = os.path.join(target, base) if target != "." else base
    if os.path.exists(check):
        raise RunnerError(f"failed to untar: a file or directory with the name {check} already exists")
    os.makedirs(check)  # Helm makes it even when the chart's own name differs
    archive.expand(data, Path(target))


def update_missing_dependencies(chart: Any, path: str, args: Any, out: Any) -> Any:
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
