"""`repo add|update|list|remove` (helm repo): repositories.yaml and the index cache."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, exact_args, minimum_args, no_args
from runner.cli.errors import user_errors
from runner.cli.flags import print_said
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
This command consists of multiple subcommands to interact with chart repositories.

It can be used to add, remove, list, and index chart repositories.
"""


def build(_name: str) -> Command:
    return Command("repo add|remove|list|index|update [ARGS]",
                   "add, list, remove, update, and index chart repositories", long=LONG, children=[
                       Command("add [NAME] [URL]", "add a chart repository", args=exact_args(2),
                               run=handle_add, flags=_add_flags),
                       Command("index [DIR]", "generate an index file given a directory containing packaged "
                               "charts", args=exact_args(1), run=handle_index, flags=_index_flags),
                       Command("list", "list chart repositories", aliases=("ls",), args=no_args,
                               run=handle_list),
                       Command("remove [REPO1 [REPO2 ...]]", "remove one or more chart repositories",
                               aliases=("rm",), args=minimum_args(1), run=handle_remove),
                       Command("update [REPO1 [REPO2 ...]]", "update information of available charts "
                               "locally from chart repositories", aliases=("up",), run=handle_update),
                   ])


def _add_flags(fs: FlagSet) -> None:
    fs.string("username", "chart repository username")
    fs.string("password", "chart repository password")
    fs.bool("force-update", "replace (overwrite) the repo if it already exists")
    fs.string("cert-file", "identify HTTPS client using this SSL certificate file")
    fs.string("key-file", "identify HTTPS client using this SSL key file")
    fs.string("ca-file", "verify certificates of HTTPS-enabled servers using this CA bundle")
    fs.bool("insecure-skip-tls-verify", "skip tls certificate checks for the repository")
    fs.bool("pass-credentials", "pass credentials to all domains")


def _index_flags(fs: FlagSet) -> None:
    fs.string("url", "url of chart repository")
    fs.string("merge", "merge the generated index into the given index")
    fs.bool("json", "output in JSON format")


@user_errors
def handle_add(args: Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repo import validate_repository
    from runner.chart.sources.repofile import Entry, load_repo_file, locked, write_repo_file

    name, url = args.args
    if "/" in name:
        raise RunnerError(f"repository name ({name}) contains '/', please specify a different name without '/'")
    paths = HelmPaths.from_env()
    entry = Entry(name=name, url=url, username=args.username, password=args.password,
                  cert_file=args.cert_file, key_file=args.key_file, ca_file=args.ca_file,
                  insecure_skip_tls_verify=args.insecure_skip_tls_verify,
                  pass_credentials_all=args.pass_credentials)
    with locked(paths.repository_config):
        repo_file = load_repo_file(paths.repository_config)
        existing = repo_file.get(name)
        if existing is not None and not args.force_update:
            if existing.same_config(entry):
                print(f'"{name}" already exists with the same configuration, skipping')
                return 0
            raise RunnerError(f"repository name ({name}) already exists, please specify a different name")
        validate_repository(entry, paths, say=print_said)
        repo_file.update(entry)
        write_repo_file(repo_file, paths.repository_config)
    print(f'"{name}" has been added to your repositories')
    return 0


@user_errors
def handle_update(args: Namespace) -> int:
    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repo import download_index_file
    from runner.chart.sources.repofile import load_repo_file

    paths = HelmPaths.from_env()
    repos = load_repo_file(paths.repository_config).repositories
    if not repos:
        raise RunnerError("no repositories found. You must add one before updating")
    if args.args:
        unknown = [n for n in args.args if all(r.name != n for r in repos)]
        if unknown:
            raise RunnerError(f"no repositories found matching '{', '.join(unknown)}'.  Nothing will be updated")
        repos = [r for r in repos if r.name in args.args]
    print("Hang tight while we grab the latest from your chart repositories...")
    failed = []
    for entry in repos:
        try:
            download_index_file(entry, paths, say=print_said)
            print(f'...Successfully got an update from the "{entry.name}" chart repository')
        except SourceError as exc:
            failed.append(entry.url)
            print(f'...Unable to get an update from the "{entry.name}" chart repository ({entry.url}):\n\t{exc}')
    if failed:
        raise RunnerError(f"failed to update the following repositories: {failed}".replace("'", ""))
    print("Update Complete. ⎈Happy Helming!⎈")
    return 0


@user_errors
def handle_list(args: Namespace) -> int:
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
def handle_remove(args: Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.repofile import load_repo_file, write_repo_file

    paths = HelmPaths.from_env()
    repo_file = load_repo_file(paths.repository_config)
    if not repo_file.repositories:
        raise RunnerError("no repositories configured")
    for name in args.args:
        if not repo_file.remove(name):
            raise RunnerError(f'no repo named "{name}" found')
        write_repo_file(repo_file, paths.repository_config)
        for cached in (paths.index_file(name), paths.charts_file(name)):
            cached.unlink(missing_ok=True)
        print(f'"{name}" has been removed from your repositories')
    return 0


@user_errors
def handle_index(args: Namespace) -> int:
    """helm repo index DIR: DIR/index.yaml from the archives in DIR (and --merge's entries)."""
    from pathlib import Path

    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.repoindex import (
        index_directory,
        merge_existing,
        sorted_entries,
        write_index,
    )

    directory = Path(args.args[0])
    entries = index_directory(directory, args.url)
    try:
        if args.merge:
            merge_existing(entries, Path(args.merge), args.json, say=print_said)
    except SourceError as err:
        raise RunnerError(str(err)) from err
    write_index(sorted_entries(entries), directory / "index.yaml", args.json)
    return 0

