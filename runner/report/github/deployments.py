"""A pull request's preview as a GitHub deployment: created on the head commit in the
environment `pr-<number>` (or the spec's `preview.environment`), with a status that
carries the preview's URL, so the pull request shows "View deployment"; every deployment
of the environment marked `inactive` when the preview is torn down."""

from __future__ import annotations

from dataclasses import dataclass

from runner.report import limits
from runner.report.github.client import GitHubReport


def preview_environment(pull_number: int, configured: str = "") -> str:
    return configured or f"pr-{pull_number}"


@dataclass
class PreviewDeployments:
    report: GitHubReport
    log_url: str = ""  # the workflow run, shown as the deployment's log

    def deployed(self, environment: str, sha: str, *, succeeded: bool, url: str = "",
                 description: str = "") -> None:
        deployment = self.report.call(
            f"create the deployment of {environment}",
            lambda: self.report.repo.create_deployment(
                ref=sha, environment=environment, transient_environment=True,
                production_environment=False, auto_merge=False, required_contexts=[],
                description=limits.cut_chars(description, limits.STATUS_DESCRIPTION_CHARS),
                task="deploy:preview"))
        if deployment is None:
            return
        status: dict[str, object] = {
            "state": "success" if succeeded else "failure",
            "description": limits.cut_chars(description or environment,
                                            limits.STATUS_DESCRIPTION_CHARS),
            "auto_inactive": True}
        if url:
            status["environment_url"] = url
        if self.log_url:
            status["target_url"] = self.log_url
        self.report.call(f"set the status of the deployment of {environment}",
                         lambda: deployment.create_status(**status))

    def torn_down(self, environment: str) -> int:
        """Mark every deployment of `environment` inactive; how many were."""
        deployments = self.report.call(
            f"list the deployments of {environment}",
            lambda: list(self.report.repo.get_deployments(environment=environment)))
        for deployment in deployments or []:
            self.report.call(
                f"mark the deployment of {environment} inactive",
                lambda deployment=deployment: deployment.create_status(
                    state="inactive", description="preview removed"))
        return len(deployments or [])
