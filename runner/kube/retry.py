"""Which requests to the API server are sent again after a failure, when, and how often.

A request is sent again only where that cannot apply it twice:

- the server says it did not process it: 429 Too Many Requests (priority and
  fairness, max-in-flight): any request, after its Retry-After;
- it never left: the connection was refused or timed out, once the server has
  answered this client before (it is restarting, or failing over; a server
  that never answered fails at once, as Helm's does, with Go's words);
- its outcome is unknown (the connection dropped after it was sent, 502, 503,
  504, or a 500 with Retry-After) and sending it again changes nothing more:
  reads, server-side apply and merge patches, dry runs. A create, a replace or
  a delete is looked up first (GET): when the object already is what the
  request asked for (or is gone, for a delete), that is the answer; otherwise
  it is sent again, and the server says 409 if someone else got there first.
  Anything else (a JSON patch, a create without a name) is not sent again.

Waits: the server's Retry-After when it gives one (never sooner; a longer one
than MAX_RETRY_AFTER_SECONDS is not waited for, the answer stands), else an
exponential backoff; at most MAX_RETRIES retries (client-go's maxRetries),
MAX_WAIT_SECONDS of waiting and no new attempt MAX_RETRY_SECONDS after the first, nor
past the caller's deadline (a watch opened for a wait: the wait ends at its --timeout).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

MAX_RETRIES = 10
MAX_RETRY_AFTER_SECONDS = 30.0
MAX_WAIT_SECONDS = 60.0
MAX_RETRY_SECONDS = 120.0
FIRST_BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 8.0

FINAL, RESEND, LOOK_FIRST = "final", "resend", "look first"

# Sending one of these twice leaves the object as sending it once (a JSON patch may not).
_REPEATABLE_PATCHES = ("application/apply-patch+yaml", "application/merge-patch+json",
                       "application/strategic-merge-patch+json")
# Set by the server on every write: not part of what a request asked for.
_SERVER_FIELDS = ("resourceVersion", "managedFields", "creationTimestamp", "uid", "generation",
                  "selfLink")


@dataclass(frozen=True)
class Call:
    """One request as the retry rules see it."""

    method: str
    path: str
    query: list[tuple[str, str]] = field(default_factory=list)
    content_type: str = ""
    body: bytes | None = None

    @property
    def repeatable(self) -> bool:
        """Sending it twice leaves the cluster as sending it once."""
        if self.method in ("GET", "HEAD") or ("dryRun", "All") in self.query:
            return True
        return self.method == "PATCH" and self.content_type.split(";")[0].strip() in _REPEATABLE_PATCHES

    @property
    def target(self) -> str:
        """The object a create, replace or delete is about ("" when it has no name yet)."""
        if self.method in ("PUT", "DELETE"):
            return self.path
        if self.method == "POST":
            name = (_decoded(self.body).get("metadata") or {}).get("name")
            return f"{self.path}/{name}" if isinstance(name, str) and name else ""
        return ""


def after_reply(call: Call, status: int, retry_after: str) -> str:
    """What to do after an answer: FINAL (it stands), RESEND, or LOOK_FIRST (a write
    whose outcome the answer leaves open)."""
    if status == 429:
        return RESEND
    if status in (502, 503, 504) or (status == 500 and retry_after):
        return _unknown_outcome(call)
    return FINAL


def after_failure(call: Call, sent: bool, transient: bool, answered_before: bool) -> str:
    """What to do when no answer came: `sent` False when the request never left."""
    if not transient:
        return FINAL  # a name that does not resolve, a certificate that does not verify
    if not sent:
        return RESEND if answered_before else FINAL
    return _unknown_outcome(call)


def _unknown_outcome(call: Call) -> str:
    if call.repeatable:
        return RESEND
    return LOOK_FIRST if call.target else FINAL


def settled(call: Call, status: int, live: bytes) -> bool:
    """After LOOK_FIRST: whether the object (GET `call.target`: status, body) shows that
    the write took effect, so sending it again is not needed."""
    if call.method == "DELETE":
        return status == 404
    return status == 200 and reflects(_decoded(call.body), _decoded(live))


def reflects(sent: Any, live: Any) -> bool:
    """Every field the request set has that value in the live object (the server adds
    its own fields; those it sets on every write are left out of the comparison)."""
    if isinstance(sent, dict):
        if not isinstance(live, dict):
            return False
        return all(key in live and reflects(value, live[key])
                   for key, value in sent.items() if key not in _SERVER_FIELDS)
    if isinstance(sent, list):
        return (isinstance(live, list) and len(sent) == len(live)
                and all(reflects(a, b) for a, b in zip(sent, live, strict=True)))
    return bool(sent == live and type(sent) is type(live))


def _decoded(data: bytes | None) -> dict[str, Any]:
    try:
        value = json.loads(data or b"{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


@dataclass
class Budget:
    """The retries one request has left, and how long to wait before the next."""

    started: float = field(default_factory=time.monotonic)
    deadline: float = math.inf  # time.monotonic() after which no attempt starts
    retries: int = 0
    waited: float = 0.0

    def next_wait(self, retry_after: str = "") -> float | None:
        """Seconds to wait before the next attempt, or None: no retry left."""
        asked = _seconds(retry_after)
        if asked is not None and asked > MAX_RETRY_AFTER_SECONDS:
            return None
        wait = asked if asked is not None else min(
            FIRST_BACKOFF_SECONDS * 2 ** self.retries, MAX_BACKOFF_SECONDS)
        resumes = time.monotonic() + wait
        if (self.retries >= MAX_RETRIES or self.waited + wait > MAX_WAIT_SECONDS
                or resumes - self.started > MAX_RETRY_SECONDS or resumes >= self.deadline):
            return None
        self.retries += 1
        self.waited += wait
        return wait


def _seconds(retry_after: str) -> float | None:
    """Retry-After in seconds, as client-go reads it (a whole number; a date is ignored)."""
    text = retry_after.strip()
    return float(text) if text.isdigit() else None
