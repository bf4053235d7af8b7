"""One GitHub client for the report, over PyGithub (pinned in pyproject.toml; docs/github.md
says why): GitHub Enterprise Server through GITHUB_API_URL, the token of the
`github_token` input, retries for 5xx and rate limits with bounded waits.

Reporting never turns a good deploy red: `GitHubReport.call` runs one API call and turns
any failure into a warning; a 403 that is not a rate limit (a fork's read-only token)
stops every later call, and the run falls back to the job summary.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from github import Auth, Github, GithubException, GithubRetry
from github.GithubException import RateLimitExceededExceedsMaxWait

from runner import version

T = TypeVar("T")
API_VERSION = "2022-11-28"
DEFAULT_API_URL = "https://api.github.com"


@dataclass(frozen=True)
class RetryPolicy:
    """How long the report may wait for GitHub: retries of 5xx and rate-limited answers,
    exponential backoff, and no single wait longer than `max_wait` seconds (a rate limit
    that resets later is given up on: the job summary still has the result)."""

    retries: int = 4
    backoff: float = 1.0  # 1, 2, 4, 8 s
    max_backoff: float = 30.0
    secondary_wait: float = 60.0  # GitHub: "wait at least a minute" without Retry-After
    max_wait: float = 90.0
    seconds_between_writes: float = 1.0  # GitHub asks for a pause between mutating calls
    seconds_between_requests: float = 0.25  # and for calls made one at a time


class _BoundedRetry(GithubRetry):
    """PyGithub's retry (403 rate limits by message, 5xx), plus 429 and its
    x-ratelimit-reset, with every wait bounded by `max_rate_limit_wait`."""

    def increment(self, method: str | None = None, url: str | None = None,  # type: ignore[override]
                  response: Any = None, error: Exception | None = None, _pool: Any = None,
                  _stacktrace: Any = None) -> Any:
        wait = _required_wait(response) if response is not None else None
        if wait is not None and self.max_rate_limit_wait is not None \
                and wait > self.max_rate_limit_wait:
            raise RateLimitExceededExceedsMaxWait(response.status, None, dict(response.headers),
                                                  wait=wait)
        retry = super().increment(method, url, response, error, _pool, _stacktrace)
        if response is not None and response.status == 429 and wait is not None \
                and "Retry-After" not in response.headers:
            retry.get_backoff_time = lambda: wait  # type: ignore[method-assign]
        return retry


def _required_wait(response: Any) -> float | None:
    """GitHub's rule: Retry-After, else x-ratelimit-reset when nothing remains."""
    headers = response.headers
    if response.status not in (403, 429):
        return None
    after = headers.get("Retry-After")
    if after is not None and after.isdigit():
        return float(after)
    if headers.get("x-ratelimit-remaining") == "0" and (headers.get("x-ratelimit-reset") or
                                                        "").isdigit():
        return max(float(headers["x-ratelimit-reset"]) - time.time(), 0.0) + 1.0
    return None


@dataclass
class GitHubReport:
    """The repository the report writes to, and what went wrong writing to it."""

    api_url: str
    token: str
    repository: str  # owner/name
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    warnings: list[str] = field(default_factory=list)
    refused: str = ""  # why GitHub refused us (403); set, no further call is made

    def __post_init__(self) -> None:
        retry = _BoundedRetry(
            total=self.policy.retries, backoff_factor=self.policy.backoff,
            backoff_max=self.policy.max_backoff, secondary_rate_wait=self.policy.secondary_wait,
            max_rate_limit_wait=self.policy.max_wait,
            status_forcelist=[*range(500, 600), 429],
            # the report's writes (POST, PATCH) are retried too: a 5xx or a rate limit
            # means GitHub did not do them
            allowed_methods={"GET", "POST", "PATCH"})
        self.github = Github(auth=Auth.Token(self.token), base_url=self.api_url.rstrip("/"),
                             lazy=True, retry=retry, api_version=API_VERSION,
                             user_agent=f"deploy-runner/{version()}", timeout=30,
                             seconds_between_writes=self.policy.seconds_between_writes,
                             seconds_between_requests=self.policy.seconds_between_requests)
        self.repo = self.github.get_repo(self.repository)

    def call(self, what: str, action: Callable[[], T]) -> T | None:
        """`action()`, or None with a warning when GitHub could not be reached or refused."""
        if self.refused:
            return None
        try:
            return action()
        except RateLimitExceededExceedsMaxWait as err:
            self.warnings.append(f"{what}: GitHub's rate limit resets in {err.wait:.0f} s, "
                                 "longer than the report waits; the result is in the job summary")
        except GithubException as err:
            message = (err.data or {}).get("message", "") if isinstance(err.data, dict) else ""
            if err.status in (403, 429) and "rate limit" in message.lower():
                self.refused = f"{err.status} {message}"
                self.warnings.append(f"could not {what}: GitHub's rate limit ({message}); "
                                     "the result is in the job summary")
            elif err.status == 403:
                self.refused = f"{err.status} {message}".strip()
                self.warnings.append(
                    f"GitHub refused to {what} ({self.refused}): the token cannot write here "
                    "(a pull request from a fork gets a read-only token, or the workflow's "
                    "permissions lack checks: write); the result is in the job summary")
            else:
                self.warnings.append(f"could not {what}: GitHub answered {err.status} {message}")
        except Exception as err:  # network, retries exhausted: never the deploy's failure
            self.warnings.append(f"could not {what}: {type(err).__name__}: {err}")
        return None
