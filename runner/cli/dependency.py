"""`dependency list|update|build` (helm dependency; aliases `dep`, `dependencies`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, maximum_args
from runner.cli.errors import user_errors
from runner.cli.flags import (
    credential_flags,
    default_keyring,
    print_said,
    source_options,
    tls_flags,
)

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Manage the dependencies of a chart.

Helm charts store their dependencies in 'charts/'. For chart developers, it is
often easier to manage dependencies in 'Chart.yaml' which declares all
dependencies.

The dependency commands operate on that file, making it easy to synchronize
between the desired dependencies and the actual dependencies stored in the
'charts/' directory.
"""


def build(_name: str) -> Command:
    return Command("dependency update|build|list", "manage a chart's dependencies", long=LONG,
                   aliases=("dep", "dependencies"), children=[
                       Command("list CHART", "list the dependencies for the given chart", aliases=("ls",),
                               args=maximum_args(1), run=handle_list),
                       Command("update CHART", "update charts/ based on the contents of Chart.yaml",
                               aliases=("up",), args=maximum_args(1), run=handle_update, flags=_fetch_flags),
                       Command("build CHART", "rebuild the charts/ directory based on the Chart.lock file",
                               args=maximum_args(1), run=handle_build, flags=_fetch_flags),
                   ])


def _fetch_flags(fs: FlagSet) -> None:
    fs.bool("verify", "verify the packages against signatures")
    fs.string("keyring", "keyring containing public keys", default=default_keyring())
    fs.bool("skip-refresh", "do not refresh the local repository cache")
    credential_flags(fs)
    tls_flags(fs)
    fs.bool("plain-http", "use insecure HTTP connections for the chart download")


def _chart(args: Namespace) -> str:
    return args.args[0] if args.args else "."


@user_errors
def handle_list(args: Namespace) -> int:
    from runner.chart.sources.deplist import list_dependencies

    list_dependencies(os.path.normpath(_chart(args)), say=print_said)
    return 0


def _manager(args: Namespace) -> Any:
    from runner.errors import RunnerError

    chart = _chart(args)
    if not os.path.exists(chart):
        raise RunnerError(f"could not find {chart}: stat {chart}: no such file or directory")
    from runner.chart.sources.dependency import Manager
    from runner.chart.sources.paths import HelmPaths

    # dependency's flags have no --repo, --version or --pass-credentials: source_options' defaults
    return Manager(Path(os.path.normpath(chart)), source_options(args), HelmPaths.from_env(),
                   skip_refresh=args.skip_refresh, say=print_said)


@user_errors
def handle_update(args: Namespace) -> int:
    _manager(args).update()
    return 0


@user_errors
def handle_build(args: Namespace) -> int:
    _manager(args).build()
    return 0
