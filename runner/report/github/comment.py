"""The sticky plan comment: one comment per pull request (and environment), found again by
a hidden HTML marker and edited on each push, never a new one per push."""

from __future__ import annotations

from runner.report.github.client import GitHubReport


def marker(environment: str = "") -> str:
    return f"<!-- deploy-runner plan{': ' + environment if environment else ''} -->"


def upsert_comment(report: GitHubReport, pull_number: int, body: str, hidden: str) -> None:
    """Edit the comment that starts with `hidden`, or create it; `body` starts with it."""
    issue = report.repo.get_issue(pull_number)  # lazy: no request
    comments = report.call(f"list the comments of pull request #{pull_number}",
                           lambda: list(issue.get_comments()))
    if comments is None:
        return
    ours = next((c for c in comments if (c.body or "").startswith(hidden)), None)
    if ours is None:
        report.call(f"comment on pull request #{pull_number}",
                    lambda: issue.create_comment(body))
    elif ours.body != body:
        report.call(f"edit the plan comment on pull request #{pull_number}",
                    lambda: ours.edit(body))
