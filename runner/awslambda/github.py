"""The Lambda's report to GitHub: a check run per release on the commit the pushed chart
came from, through the Action's reporter (runner.report.github.checks).

Where the chart came from is what its producer wrote into it (runner.awslambda.charts):
`org.opencontainers.image.source` (a repository URL, `https://github.com/OWNER/REPO`;
else Chart.yaml's first `sources` entry) and `org.opencontainers.image.revision` (the
commit). Without both there is nothing to report to, and the log says so.

Credentials (runner.aws.lambda_config.github_credentials): a GitHub App's id and private
key (the App's JWT is exchanged for an installation token of the repository, kept until
shortly before it expires), or a token that may create check runs (GitHub lets only
Apps create them: a personal access token is refused, and the log line says so).
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

DEFAULT_API_URL = "https://api.github.com"
_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_NAME = re.compile(r"[A-Za-z0-9_.-]+")
RENEW_BEFORE_SECONDS = 300

_lock = threading.Lock()
_installation_tokens: dict[tuple[str, str, str], tuple[float, str]] = {}


def repository_of(source: str) -> str:
    """OWNER/REPO of a repository URL (`https://github.com/o/r`, `.git` and a trailing
    path allowed), or ""."""
    parts = urlsplit(source if "://" in source else f"https://{source}")
    segments = [s for s in parts.path.split("/") if s]
    if parts.scheme not in ("https", "http") or len(segments) < 2:
        return ""
    owner, repo = segments[0], segments[1].removesuffix(".git")
    return f"{owner}/{repo}" if _NAME.fullmatch(owner) and _NAME.fullmatch(repo) else ""


def why_not(source: str, revision: str) -> str:
    """Why a chart's provenance cannot be reported to ("" when it can)."""
    if not source:
        return "the chart names no source repository (org.opencontainers.image.source)"
    if not repository_of(source):
        return f"the chart's source {source!r} is not a repository URL"
    if not _SHA.fullmatch(revision or ""):
        return "the chart names no commit (org.opencontainers.image.revision: a full SHA)"
    return ""


def post(data: dict[str, Any], source: str, revision: str, credentials: Any, api_url: str,
         environment: str = "") -> list[str]:
    """A completed check run per release the run concerned (`data`: the redacted run JSON);
    what went wrong posting, as warnings (never raised)."""
    from runner.report.adapt import run_report
    from runner.report.github.checks import CheckRuns
    from runner.report.github.client import GitHubReport

    repository = repository_of(source)
    try:
        token = _token(credentials, repository, api_url)
    except Exception as err:  # noqa: BLE001 - GitHub's failure is never the deploy's
        return [f"GitHub App login for {repository} failed: {type(err).__name__}: {err}"]
    report = GitHubReport(api_url, token, repository)
    checks = CheckRuns(report, revision, Path("/nonexistent"), environment=environment)
    concerned = [r for r in data["releases"] if r["status"] != "not-selected"]
    for release in run_report({**data, "releases": concerned}, Path("/nonexistent")).releases:
        checks.finish(release)
    return report.warnings


def _token(credentials: Any, repository: str, api_url: str) -> str:
    if credentials.token:
        return str(credentials.token)
    key = (credentials.app_id, repository, api_url)
    with _lock:
        kept = _installation_tokens.get(key)
        if kept is not None and kept[0] > time.time():
            return kept[1]
    from github import Auth, GithubIntegration

    integration = GithubIntegration(auth=Auth.AppAuth(credentials.app_id, credentials.private_key),
                                    base_url=api_url.rstrip("/"))
    installation = credentials.installation_id
    if not installation:
        owner, repo = repository.split("/")
        installation = integration.get_repo_installation(owner, repo).id
    granted = integration.get_access_token(installation)
    expires = granted.expires_at.timestamp() if granted.expires_at else time.time() + 3600
    with _lock:
        _installation_tokens[key] = (expires - RENEW_BEFORE_SECONDS, granted.token)
    return str(granted.token)
