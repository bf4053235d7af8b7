"""What a run knows about why it runs: the `${...}` variables and what `when` selects on.

In a GitHub workflow the event payload (GITHUB_EVENT_PATH) and the GITHUB_*
variables give them; locally, the git checkout does (`git rev-parse`...). Each
value is looked up the first time a spec uses it, so a spec without variables
runs no git command. A variable the run has no value for (`${pr}` on a push)
is an error where it is used, with the reason; `$${` writes a literal `${`.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

NAMES = ("sha", "ref", "branch", "pr", "actor", "repository", "environment", "run_id")
PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target")
_MAX_PUSH_COMMITS = 2048  # GitHub's cap on a push payload's commits: more means the list is cut


class VariableError(ValueError):
    """A `${...}` that cannot be substituted; str() says why."""


@dataclass
class RunContext:
    """The values a run substitutes and selects with. `lookups` compute a value on first
    use (None: no value, `reasons[name]` says why); `event` is None without an event."""

    environment: str = "default"
    event: str | None = None  # the GitHub event name; None: a local run (every release selected)
    lookups: dict[str, Callable[[], str | None]] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    changed_paths: Callable[[], list[str] | None] = lambda: None
    _cache: dict[str, str | None] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        if name == "environment":
            return self.environment
        if name not in self._cache:
            lookup = self.lookups.get(name)
            self._cache[name] = lookup() if lookup is not None else None
        return self._cache[name]

    @property
    def branch(self) -> str | None:
        return self.value("branch")

    def substitute(self, text: str) -> str:
        """Every `${name}` of `text` replaced; `$${` is a literal `${`."""
        if "${" not in text:
            return text
        out: list[str] = []
        i = 0
        while i < len(text):
            if text.startswith("$${", i):
                out.append("${")
                i += 3
                continue
            if not text.startswith("${", i):
                out.append(text[i])
                i += 1
                continue
            end = text.find("}", i + 2)
            if end < 0:
                raise VariableError(f"unterminated ${{ in {text!r} (write $${{ for a literal ${{)")
            out.append(self._variable(text[i + 2:end]))
            i = end + 1
        return "".join(out)

    def _variable(self, name: str) -> str:
        if name not in NAMES:
            raise VariableError(f"unknown variable ${{{name}}}: the variables are "
                                + ", ".join(f"${{{n}}}" for n in NAMES))
        value = self.value(name)
        if value is None:
            reason = self.reasons.get(name, "not known here")
            raise VariableError(f"${{{name}}} has no value in this run: {reason}")
        return value


def local_context(environment: str = "default", cwd: str = ".",
                  environ: Mapping[str, str] | None = None) -> RunContext:
    """The context of this process: a GitHub workflow's event when GITHUB_EVENT_PATH names
    one, else the git checkout at `cwd`."""
    env = os.environ if environ is None else environ
    path = env.get("GITHUB_EVENT_PATH", "")
    if env.get("GITHUB_ACTIONS") == "true" and path:
        try:
            with open(path, encoding="utf-8") as handle:
                payload = json.load(handle)
        except (OSError, ValueError):
            payload = {}
        return github_context(env.get("GITHUB_EVENT_NAME", ""), payload if isinstance(payload, dict)
                              else {}, env, environment, cwd)
    return git_context(environment, cwd, env)


def github_context(event: str, payload: dict, env: Mapping[str, str], environment: str = "default",
                   cwd: str = ".") -> RunContext:
    """A workflow run's context: the event payload, then GITHUB_* (DESIGN's contracts 2.3, 2.5)."""
    pull = payload.get("pull_request") if isinstance(payload.get("pull_request"), dict) else None
    ref = env.get("GITHUB_REF") or str(payload.get("ref") or "")
    head = (pull or {}).get("head") or {}
    base = (pull or {}).get("base") or {}

    def branch() -> str | None:
        if pull is not None:
            return env.get("GITHUB_HEAD_REF") or head.get("ref") or None
        return ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else None

    def pr() -> str | None:
        number = (pull or {}).get("number") or (payload.get("number") if pull is not None else None)
        return str(number) if number is not None else None

    def changed() -> list[str] | None:
        if event == "push":
            return _push_paths(payload)
        if pull is not None and base.get("sha") and head.get("sha"):
            return _git_lines(cwd, "diff", "--name-only", f"{base['sha']}...{head['sha']}")
        return None

    lookups: dict[str, Callable[[], str | None]] = {
        "sha": lambda: head.get("sha") or env.get("GITHUB_SHA") or None,
        "ref": lambda: ref or None,
        "branch": branch,
        "pr": pr,
        "actor": lambda: env.get("GITHUB_ACTOR") or ((payload.get("sender") or {}).get("login")) or None,
        "repository": lambda: env.get("GITHUB_REPOSITORY")
        or ((payload.get("repository") or {}).get("full_name")) or None,
        "run_id": lambda: env.get("GITHUB_RUN_ID") or None,
    }
    reasons = {"pr": f"a {event or 'this'} event is not a pull request",
               "branch": f"{ref or 'the ref'} is not a branch"}
    return RunContext(environment, event or "unknown", lookups, reasons, changed)


def payload_context(payload: Mapping[str, object], environment: str = "default") -> RunContext:
    """An event handed over directly (a Lambda invocation, a repository_dispatch payload):
    the variables are the payload's keys of the same names."""
    def lookup(name: str) -> Callable[[], str | None]:
        def get() -> str | None:
            value = payload.get(name)
            return None if value is None or isinstance(value, dict | list) else str(value)
        return get

    paths = payload.get("changed_paths")
    return RunContext(environment, str(payload.get("event") or "invocation"),
                      {name: lookup(name) for name in NAMES if name != "environment"},
                      {name: f"the payload has no {name}" for name in NAMES},
                      lambda: [str(p) for p in paths] if isinstance(paths, list) else None)


def git_context(environment: str = "default", cwd: str = ".",
                env: Mapping[str, str] | None = None) -> RunContext:
    """A local run: the checkout's commit, ref and branch; `actor` is the user; no event,
    so `when` selects every release."""
    env = os.environ if env is None else env

    def branch() -> str | None:
        name = _git_text(cwd, "rev-parse", "--abbrev-ref", "HEAD")
        return name if name and name != "HEAD" else None

    lookups: dict[str, Callable[[], str | None]] = {
        "sha": lambda: checkout_commit(cwd),
        "ref": lambda: _git_text(cwd, "symbolic-ref", "-q", "HEAD"),
        "branch": branch,
        "actor": lambda: env.get("USER") or env.get("USERNAME") or None,
        "repository": lambda: _repository(_git_text(cwd, "remote", "get-url", "origin")),
    }
    reasons = {"pr": "a local run is not a pull request", "run_id": "a local run has no workflow run",
               "sha": "no git checkout here", "ref": "no branch checked out",
               "branch": "no branch checked out", "repository": "the checkout has no origin remote",
               "actor": "USER is not set"}
    return RunContext(environment, None, lookups, reasons)


def _push_paths(payload: dict) -> list[str] | None:
    commits = payload.get("commits")
    if not isinstance(commits, list) or len(commits) >= _MAX_PUSH_COMMITS:
        return None  # unknown: every release with paths runs
    paths: list[str] = []
    for commit in commits:
        if not isinstance(commit, dict):
            continue
        for key in ("added", "modified", "removed"):
            paths.extend(str(p) for p in commit.get(key) or [] if str(p) not in paths)
    return paths


_REMOTE = re.compile(r"(?:[:/])([^/:]+/[^/]+?)(?:\.git)?/?$")


def _repository(url: str | None) -> str | None:
    """owner/name of a GitHub-style remote URL (https://github.com/o/n.git, git@github.com:o/n)."""
    match = _REMOTE.search(url or "")
    return match.group(1) if match else None


def checkout_commit(cwd: str) -> str | None:
    """The commit checked out at `cwd` (None outside a git checkout)."""
    return _git_text(cwd, "rev-parse", "HEAD")


def _git_text(cwd: str, *args: str) -> str | None:
    lines = _git_lines(cwd, *args)
    return lines[0] if lines else None


def _git_lines(cwd: str, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=30,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [line for line in done.stdout.splitlines() if line]


def glob_pattern(glob: str) -> re.Pattern[str]:
    """GitHub's filter patterns: `*` stays within a path segment, `**` crosses them, `?` one
    character."""
    out = []
    i = 0
    while i < len(glob):
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return re.compile("".join(out))


def matches_any(text: str, globs: list[str]) -> bool:
    return any(glob_pattern(g).fullmatch(text) for g in globs)
