"""Helm's action.Pull, and --dependency-update's update of missing dependencies."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runner.chart.sources.downloader import SourceOptions
from runner.chart.sources.messages import Say
from runner.errors import RunnerError


@dataclass(frozen=True)
class PullOptions:
    """What `pull` was asked for: where the chart comes from (`source`, its --verify and
    --keyring too) and where it goes."""

    source: SourceOptions
    destination: str = "."
    untar: bool = False
    untardir: str = "."
    prov: bool = False  # fetch the provenance file without verifying


def pull(chart_ref: str, opts: PullOptions, on_message: Callable[[str], None], say: Say) -> None:
    """Download `chart_ref` into --destination (or expand it with --untar); the verification
    report or a missing provenance's warning goes to `on_message`, what the download says
    (a registry's `Pulled:` report) to `say`."""
    from runner.chart.sources.downloader import fetch_chart
    from runner.chart.sources.fileutil import atomic_write_file
    from runner.chart.sources.paths import HelmPaths

    verify = opts.source.verify
    download = fetch_chart(chart_ref, opts.source, HelmPaths.from_env(), with_prov=verify or opts.prov, say=say)
    if not opts.untar:  # Helm saves the archive before it looks at the provenance
        # DownloadTo: into an existing --destination only (AtomicWriteFile), mode 0644
        atomic_write_file(os.path.join(opts.destination, download.file_name), download.data, 0o644)
    if verify:
        on_message(verify_download(download, opts.source.keyring))
    elif opts.prov and download.prov is None:
        on_message(f"WARNING: Verification not found for {chart_ref}: {download.prov_error}\n")
    if opts.untar:
        untar(download.data, chart_ref, opts)
    elif download.prov is not None:
        atomic_write_file(os.path.join(opts.destination, download.file_name + ".prov"), download.prov, 0o644)


def verify_download(download: Any, keyring: str) -> str:
    """pull --verify: check the .prov signature and the archive's hash; Helm's report."""
    from runner.chart.sources.downloader import verify_download as verify

    return verify(download, keyring)


def untar(data: bytes, chart_ref: str, opts: PullOptions) -> None:
    """Pull --untar: refuse an existing target, then expand through the safe archive reader."""
    from runner.chart import archive

    target = opts.untardir if os.path.isabs(opts.untardir) else os.path.join(opts.destination, opts.untardir)
    target = os.path.normpath(target)
    base = chart_ref.rsplit("/", 1)[-1]  # filepath.Split: a reference's tag or digest stays
    check = os.path.join(target, base) if target != "." else base
    if os.path.exists(check):
        raise RunnerError(f"failed to untar: a file or directory with the name {check} already exists")
    os.makedirs(check)  # Helm makes it even when the chart's own name differs
    archive.expand(data, Path(target))


def update_missing_dependencies(chart: Any, path: str, source: SourceOptions, say: Say) -> Any:
    """Install/template --dependency-update: when charts/ lacks a declared dependency,
    run `dependency update` on the chart directory (its progress said to `say`) and load it again."""
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
    Manager(Path(path), source, HelmPaths.from_env(), say=say).update()
    return load_chart(path)
