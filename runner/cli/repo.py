"""`repo add|update|list|remove` (helm repo): repositories.yaml and the index cache."""

from __future__ import annotations

import argparse
import sys

from runner.cli.errors import user_errors
from runner.cli.flags import add_credential_flags, group_help
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("repo", help="add, list, remove, update chart repositories")
    parser.set_defaults(handler=group_help(parser, as_error=True))
    commands = parser.add_subparsers(dest="repo_command", metavar="COMMAND")
    add = commands.add_parser("add", help="add a chart repository")
    add.add_argument("args", nargs="*", metavar="NAME URL")
    add_credential_flags(add)
    add.add_argument("--pass-credentials", action="store_true")
    add.add_argument("--force-update", action="store_true")
    add.set_defaults(handler=handle_add)
    update = commands.add_parser("update", aliases=["up"], help="update repository indexes")
    update.add_argument("names", nargs="*")
    update.set_defaults(handler=handle_update)
    listing = commands.add_parser("list", aliases=["ls"], help="list chart repositories")
    listing.set_defaults(handler=handle_list)
    remove = commands.add_parser("remove", aliases=["rm"], help="remove chart repositories")
    remove.add_argument("names", nargs="*")
    remove.set_defaults(handler=handle_remove)
    index = commands.add_parser("index", help="generate an index file from a directory of charts")
    index.add_argument("dirs", nargs="*", metavar="DIR")
    index.add_argument("--url", default="")
    index.add_argument("--merge", default="")
    index.add_argument("--json", action="store_true")
    index.set_defaults(handler=handle_index)


@user_errors
def handle_add(args: argparse.Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repo import validate_repository
    from runner.chart.sources.repofile import Entry, load_repo_file, locked, write_repo_file

    if len(args.args) != 2:
        raise RunnerError('"helm repo add" requires 2 arguments\n\nUsage:  helm repo add [NAME] [URL] [flags]')
    name, url = args.args
    if "/" in name:
        raise RunnerError(f"repository name ({name}) contains '/', please specify a different name without '/'")
    paths = HelmPaths.from_env()
    entry = Entry(name, url, args.username, args.password, args.cert_file, args.key_file,
                  args.ca_file, args.insecure_skip_tls_verify, args.pass_credentials)
    with locked(paths.repository_config):
        repo_file = load_repo_file(paths.repository_config)
        existing = repo_file.get(name)
        if existing is not None and not args.force_update:
            if existing.same_config(entry):
                print(f'"{name}" already exists with the same configuration, skipping')
                return 0
            raise RunnerError(f"repository name ({name}) already exists, please specify a different name")
        validate_repository(entry, paths)
        repo_file.update(entry)
        write_repo_file(repo_file, paths.repository_config)
    print(f'"{name}" has been added to your repositories')
    return 0


@user_errors
def handle_update(args: argparse.Namespace) -> int:
    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repo import download_index_file
    from runner.chart.sources.repofile import load_repo_file

    paths = HelmPaths.from_env()
    repos = load_repo_file(paths.repository_config).repositories
    if not repos:
        raise RunnerError("no repositories found. You must add one before updating")
    if args.names:
        unknown = [n for n in args.names if all(r.name != n for r in repos)]
        if unknown:
            raise RunnerError(f"no repositories found matching '{', '.join(unknown)}'.  Nothing will be updated")
        repos = [r for r in repos if r.name in args.names]
    print("Hang tight while we grab the latest from your chart repositories...")
    failed = []
    for entry in repos:
        try:
            download_index_file(entry, paths)
            print(f'...Successfully got an update from the "{entry.name}" chart repository')
        except SourceError as exc:
            failed.append(entry.url)
            print(f'...Unable to get an update from the "{entry.name}" chart repository ({entry.url}):\n\t{exc}')
    if failed:
        raise RunnerError(f"failed to update the following repositories: {failed}".replace("'", ""))
    print("Update Complete. ⎈Happy Helming!⎈")
    return 0


@user_errors
def handle_list(args: argparse.Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repofile import load_repo_file
    from runner.encoding.uitable import render_table

    repos = load_repo_file(HelmPaths.from_env().repository_config).repositories
    if not repos:
        print("no repositories to show", file=sys.stderr)
        return 0
    print(render_table([["NAME", "URL"], *([r.name, r.url] for r in repos)]))
    return 0


@user_errors
def handle_remove(args: argparse.Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repofile import load_repo_file, write_repo_file

    if not args.names:
        raise RunnerError("need at least one argument, name of chart repository")
    paths = HelmPaths.from_env()
    repo_file = load_repo_file(paths.repository_config)
    if not repo_file.repositories:
        raise RunnerError("no repositories configured")
    for name in args.names:
        if not repo_file.remove(name):
            raise RunnerError(f'no repo named "{name}" found')
        write_repo_file(repo_file, paths.repository_config)
        for cached in (paths.index_file(name), paths.charts_file(name)):
            cached.unlink(missing_ok=True)
        print(f'"{name}" has been removed from your repositories')
    return 0


@user_errors
def handle_index(args: argparse.Namespace) -> int:
    """helm repo index DIR: DIR/index.yaml from the archives in DIR (and --merge's entries)."""
    from pathlib import Path

    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.repoindex import (
        index_directory,
        merge_existing,
        sorted_entries,
        write_index,
    )

    if len(args.dirs) != 1:
        raise RunnerError('"helm repo index" requires 1 argument\n\nUsage:  helm repo index [DIR] [flags]')
    directory = Path(args.dirs[0])
    entries = index_directory(directory, args.url)
    try:
        if args.merge:
            merge_existing(entries, Path(args.merge), args.json)
    except SourceError as err:
        raise RunnerError(str(err)) from err
    write_index(sorted_entries(entries), directory / "index.yaml", args.json)
    return 0

