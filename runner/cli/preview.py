"""`preview gc`: remove pull-request previews whose pull request is closed or whose last
deploy is older than --ttl. Safe on a schedule: it only touches namespaces labelled
deploy-runner/preview=true, and a pull request GitHub does not answer about is kept."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from runner.cli.cobra import Command, no_args
from runner.cli.errors import user_errors

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

GC_LONG = """
Remove the preview namespaces of pull requests (labelled deploy-runner/preview=true):
those whose pull request is closed, asked of GitHub for the repository in
$GITHUB_REPOSITORY with the token in $GITHUB_TOKEN (or the action's github_token input;
the API at $GITHUB_API_URL), and,
with --ttl, those last deployed longer ago than that. Each preview's releases are
uninstalled, then its namespace is deleted, and a removed preview's GitHub deployments
(of the environments its releases were deployed to: preview.environment, else
pr-<number>) are marked inactive. The exit code is 1 when a preview could not be
removed (an uninstall failed, or the namespace is still there after --timeout: what keeps
it is printed), so that a scheduled run shows red.
"""


def build(_name: str) -> Command:
    return Command("preview gc", "manage pull-request previews", children=[
        Command("gc", "remove previews of closed pull requests, or older than --ttl",
                long=GC_LONG, args=no_args, run=handle_gc, flags=_gc_flags),
    ])


def _gc_flags(fs: FlagSet) -> None:
    fs.duration("ttl", "also remove previews last deployed longer ago than this (0s: never)")
    fs.duration("timeout", "how long to wait for each namespace's finalizers", default="2m0s")
    fs.bool("dry-run", "list what would be removed, remove nothing")


@user_errors
def handle_gc(args: Namespace) -> int:
    import os
    import sys
    from datetime import UTC, datetime, timedelta

    from runner.actions import preview
    from runner.cli.cluster import action_config, command_journal
    from runner.kube.namespaces import Namespaces

    journal = command_journal(args)
    cfg = action_config(args, journal)
    namespaces = Namespaces(cfg.kube())
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    github = _github(repository)
    ttl = timedelta(seconds=args.ttl) if args.ttl else None
    found = preview.previews(namespaces)
    chosen = preview.stale(found, repository=repository,
                           closed=github.closed if github else lambda number: None, ttl=ttl,
                           now=datetime.now(UTC))
    print(f"{len(found)} preview(s), {len(chosen)} to remove")
    left = 0
    for item, why in chosen:
        print(f"{'would remove' if args.dry_run else 'removing'} {item.namespace}: {why}")
        if args.dry_run:
            continue
        args.namespace = item.namespace
        result = preview.teardown(action_config(args, journal), journal, namespaces, item.namespace,
                                  args.timeout)
        problems = result.errors + [f"still there: {r}" for r in result.remaining]
        for line in problems:
            print(f"  {line}")
        left += bool(problems)
        if github and item.repository == repository and item.pull_number and not problems:
            github.retire(item)
    for warning in github.report.warnings if github else []:
        print(f"warning: {warning}", file=sys.stderr)
    if left:
        print(f"{left} preview(s) not removed")
    return 1 if left else 0


class _GitHub:
    """The repository's pull requests and preview deployments, as gc needs them."""

    def __init__(self, report: Any) -> None:
        self.report = report  # runner.report.github.client.GitHubReport

    def closed(self, number: int) -> bool | None:
        from runner.report.github.pulls import pull_closed

        return pull_closed(self.report, number)

    def retire(self, item: Any) -> None:
        """The removed preview's deployments marked inactive, so the pull request no longer
        offers "View deployment": those of the environments its namespace recorded
        (preview.environment, or pr-<number>); pr-<number> for a namespace that recorded
        none (prepared by an earlier version)."""
        from runner.report.github.deployments import PreviewDeployments, preview_environment

        deployments = PreviewDeployments(self.report)
        for environment in item.environments or (preview_environment(item.pull_number),):
            deployments.torn_down(environment)


def _github(repository: str) -> _GitHub | None:
    import os

    token = os.environ.get("INPUT_GITHUB_TOKEN") or os.environ.get("GITHUB_TOKEN", "")
    if not (repository and token):
        return None
    from runner.report.github.client import DEFAULT_API_URL, GitHubReport

    return _GitHub(GitHubReport(os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL, token,
                                repository))
