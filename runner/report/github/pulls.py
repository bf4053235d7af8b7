"""Pull requests as previews ask about them."""

from __future__ import annotations

from runner.report.github.client import GitHubReport


def pull_closed(report: GitHubReport, number: int) -> bool | None:
    """Whether pull request `number` is closed; None when GitHub did not say."""
    return report.call(f"read pull request #{number}",
                       lambda: report.repo.get_pull(number).state == "closed")
