"""What a Lambda event asks for (CONTRACTS.md section 3): chart pushes, a direct run, or
nothing this function does, each with the reason.

| event | read as |
| --- | --- |
| S3 notification (`Records[].eventSource: aws:s3`) | each `ObjectCreated:*` record a push of `s3://bucket/key` (the key form-decoded); other event names skipped |
| EventBridge `aws.s3` / `Object Created` | a push of `s3://bucket/key` (the key as it is: EventBridge does not encode it) |
| EventBridge `aws.ecr` / `ECR Image Action` | a push when PUSH, SUCCESS and `artifact-media-type` is Helm's chart config; anything else skipped with the reason |
| SQS (`Records[].eventSource: aws:sqs`) | each message's body read as one of the above, the message id kept for `batchItemFailures` |
| `{"spec": ... \\| "specRef": ..., "environment", "releases", "plan"}` | a direct run (no spec nor specRef: the configured spec) |

Nothing here trusts the event: types are checked, sizes bounded, and an object key with
a `.` or `..` segment, a control character or more than 1024 bytes is refused. What is
not understood becomes an `Invalid` naming it (never an exception).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote_plus

# runner.chart.sources.oci.CONFIG_MEDIA_TYPE, written out: the handler's cold start does not
# import the OCI client for a string (a unit test keeps the two equal)
HELM_CONFIG_MEDIA_TYPE = "application/vnd.cncf.helm.config.v1+json"
MAX_EVENT_BYTES = 1024 * 1024  # AWS's own events are a few KB; an SQS batch of them stays far below
MAX_RECORDS = 100
MAX_KEY_BYTES = 1024  # S3's limit
DIRECT_KEYS = ("spec", "specRef", "environment", "releases", "plan")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_REPOSITORY = re.compile(r"[a-z0-9]+(?:[._-][a-z0-9]+)*(?:/[a-z0-9]+(?:[._-][a-z0-9]+)*)*")
_ACCOUNT = re.compile(r"\d{12}")
_REGION = re.compile(r"[a-z]{2}(?:-[a-z]+)+-\d")
_DIGEST = re.compile(r"sha256:[a-f0-9]{64}")
_TAG = re.compile(r"[\w][\w.-]{0,127}")


@dataclass(frozen=True)
class Push:
    """A chart pushed to S3 (`s3://bucket/key`) or to ECR (`oci://host/repository`)."""

    kind: str  # "s3" | "ecr"
    url: str  # s3://bucket/key, or oci://ACCOUNT.dkr.ecr.REGION.amazonaws.com/repository
    tag: str = ""  # ECR: the image tag (the chart version, `+` written `_`)
    digest: str = ""  # ECR: the manifest's digest
    event_id: str = ""  # the S3 sequencer or the EventBridge event's id (for the log)

    def describe(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"kind": self.kind, "chart": self.url}
        if self.tag:
            shown["tag"] = self.tag
        if self.digest:
            shown["digest"] = self.digest
        return shown


@dataclass(frozen=True)
class Skipped:
    """An event (or record) that asks nothing of this function, and why."""

    reason: str
    trigger: dict[str, Any] | None = None


@dataclass(frozen=True)
class Invalid:
    """An event (or record) that was not understood: what is wrong with it."""

    error: str


@dataclass(frozen=True)
class DirectRun:
    """A direct invocation: a spec (inline, or where it is), which releases, plan or run."""

    spec: Any = None  # a mapping, or YAML/JSON text
    spec_ref: str = ""  # s3://..., ssm:NAME, or a file of the package
    environment: str = ""
    releases: tuple[str, ...] = ()
    plan: bool = False


@dataclass
class Item:
    """One thing the event asks: a push, a direct run, a skip or an error; in an SQS
    batch, the message it came from."""

    what: Push | DirectRun | Skipped | Invalid
    message_id: str = ""  # SQS's messageId ("" outside SQS)


@dataclass
class Parsed:
    items: list[Item] = field(default_factory=list)
    sqs: bool = False  # the answer must carry batchItemFailures


def parse(event: Any) -> Parsed:
    """What `event` asks, item by item; never raises."""
    try:
        size = len(json.dumps(event))
    except (TypeError, ValueError, RecursionError):
        return Parsed([Item(Invalid("the event is not JSON data"))])
    if size > MAX_EVENT_BYTES:
        return Parsed([Item(Invalid(f"the event is {size} bytes, more than the {MAX_EVENT_BYTES} "
                                    "this function reads"))])
    if not isinstance(event, dict):
        return Parsed([Item(Invalid(f"the event is a {_kind(event)}, not an object"))])
    records = event.get("Records")
    if isinstance(records, list) and records and all(
            isinstance(r, dict) and r.get("eventSource") == "aws:sqs" for r in records):
        return Parsed(_sqs(records), sqs=True)
    return Parsed([Item(what) for what in _event(event)])


def _event(event: dict[str, Any]) -> list[Push | DirectRun | Skipped | Invalid]:
    """One event outside SQS (an S3 notification may carry several records)."""
    if "Records" in event:
        return _s3_notification(event["Records"])
    source, kind = event.get("source"), event.get("detail-type")
    if source == "aws.s3":
        return [_s3_eventbridge(event)]
    if source == "aws.ecr":
        return [_ecr(event)]
    if any(key in event for key in DIRECT_KEYS):
        return [_direct(event)]
    if event.get("Event") == "s3:TestEvent":  # what S3 sends once when a notification is set up
        return [Skipped("an S3 test event (sent when the notification was configured)")]
    keys = ", ".join(sorted(str(k) for k in event)[:10]) or "none"
    described = f"source {source!r}, detail-type {kind!r}" if source or kind else f"keys: {keys}"
    return [Invalid(f"an event this function does not take ({described}): it takes S3 ObjectCreated "
                    "notifications (direct, through EventBridge or SQS), EventBridge ECR Image "
                    'Action pushes, and {"spec": ...} or {"specRef": ...} invocations')]


def _sqs(records: list[dict[str, Any]]) -> list[Item]:
    if len(records) > MAX_RECORDS:
        return [Item(Invalid(f"{len(records)} SQS messages, more than the {MAX_RECORDS} one invocation takes "
                             "(lower the event source mapping's batch size)"), _message_id(r))
                for r in records]
    items = []
    for record in records:
        message_id = _message_id(record)
        body = record.get("body")
        if not isinstance(body, str):
            items.append(Item(Invalid("an SQS message without a text body"), message_id))
            continue
        try:
            inner = json.loads(body)
        except ValueError:
            items.append(Item(Invalid("an SQS message whose body is not JSON"), message_id))
            continue
        if not isinstance(inner, dict) or (isinstance(inner.get("Records"), list)
                                           and any(isinstance(r, dict) and r.get("eventSource") == "aws:sqs"
                                                   for r in inner["Records"])):
            items.append(Item(Invalid("an SQS message whose body is not an S3 or EventBridge event"),
                              message_id))
            continue
        items += [Item(what, message_id) for what in _event(inner)]
    return items


def _message_id(record: dict[str, Any]) -> str:
    value = record.get("messageId")
    return value if isinstance(value, str) else ""


def _s3_notification(records: Any) -> list[Push | DirectRun | Skipped | Invalid]:
    if not isinstance(records, list) or not records:
        return [Invalid("Records: must be a non-empty list of S3 event records")]
    if len(records) > MAX_RECORDS:
        return [Invalid(f"Records: {len(records)} records, more than the {MAX_RECORDS} one event may carry")]
    found: list[Push | DirectRun | Skipped | Invalid] = []
    for index, record in enumerate(records):
        where = f"Records[{index}]"
        if not isinstance(record, dict) or record.get("eventSource") != "aws:s3":
            found.append(Invalid(f"{where}: not an S3 event record (eventSource aws:s3)"))
            continue
        name = record.get("eventName")
        s3 = record.get("s3")
        if not isinstance(name, str) or not isinstance(s3, dict):
            found.append(Invalid(f"{where}: an S3 record needs eventName and s3"))
            continue
        bucket, key = _dig(s3, "bucket", "name"), _dig(s3, "object", "key")
        if not isinstance(bucket, str) or not isinstance(key, str):
            found.append(Invalid(f"{where}.s3: bucket.name and object.key must be strings"))
            continue
        found.append(_s3_push(bucket, unquote_plus(key), name.startswith("ObjectCreated:"), name,
                              str(_dig(s3, "object", "sequencer") or ""), where))
    return found


def _s3_eventbridge(event: dict[str, Any]) -> Push | Skipped | Invalid:
    kind = event.get("detail-type")
    detail = event.get("detail")
    if not isinstance(detail, dict):
        return Invalid("an aws.s3 event without a detail object")
    bucket, key = _dig(detail, "bucket", "name"), _dig(detail, "object", "key")
    if not isinstance(bucket, str) or not isinstance(key, str):
        return Invalid("detail: bucket.name and object.key must be strings")
    return _s3_push(bucket, key, kind == "Object Created", str(kind), str(event.get("id") or ""), "detail")


def _s3_push(bucket: str, key: str, created: bool, what: str, event_id: str,
             where: str) -> Push | Skipped | Invalid:
    problem = _bucket_problem(bucket) or key_problem(key)
    if problem:
        return Invalid(f"{where}: {problem}")
    url = f"s3://{bucket}/{key}"
    trigger = {"kind": "s3", "chart": url}
    if not created:
        return Skipped(f"{what} is not a push (only ObjectCreated events deploy)", trigger)
    if not key.endswith(".tgz"):
        return Skipped(f"{url} is not a chart archive (NAME-VERSION.tgz)", trigger)
    return Push("s3", url, event_id=event_id)


def key_problem(key: str) -> str:
    """Why an S3 object key is refused ("" when it is not)."""
    if not key:
        return "the object key is empty"
    if len(key.encode("utf-8", "surrogatepass")) > MAX_KEY_BYTES:
        return f"the object key is longer than {MAX_KEY_BYTES} bytes"
    if _CONTROL.search(key):
        return "the object key has a control character"
    if any(part in (".", "..") for part in key.split("/")):
        return f"the object key {key[:200]!r} has a '.' or '..' segment"
    if key.startswith("/") or "//" in key:
        return f"the object key {key[:200]!r} has an empty segment"
    return ""


def _bucket_problem(bucket: str) -> str:
    return "" if _BUCKET.fullmatch(bucket) else f"{bucket[:80]!r} is not an S3 bucket name"


def _ecr(event: dict[str, Any]) -> Push | Skipped | Invalid:
    kind, detail = event.get("detail-type"), event.get("detail")
    if not isinstance(detail, dict):
        return Invalid("an aws.ecr event without a detail object")
    account, region = event.get("account"), event.get("region")
    repository = detail.get("repository-name")
    if not (isinstance(account, str) and _ACCOUNT.fullmatch(account)):
        return Invalid("account: must be a 12-digit AWS account id")
    if not (isinstance(region, str) and _REGION.fullmatch(region)):
        return Invalid("region: must be an AWS region (eu-west-1)")
    if not (isinstance(repository, str) and len(repository) <= 256 and _REPOSITORY.fullmatch(repository)):
        return Invalid("detail.repository-name: must be an ECR repository name")
    url = f"oci://{account}.dkr.ecr.{region}.amazonaws.com/{repository}"
    tag, digest = detail.get("image-tag") or "", detail.get("image-digest") or ""
    if not isinstance(tag, str) or (tag and not _TAG.fullmatch(tag)):
        return Invalid("detail.image-tag: must be an image tag")
    if not isinstance(digest, str) or (digest and not _DIGEST.fullmatch(digest)):
        return Invalid("detail.image-digest: must be a sha256 digest")
    trigger = {"kind": "ecr", "chart": url, "tag": tag, "digest": digest}
    if kind != "ECR Image Action":
        return Skipped(f"an ECR {kind!r} event is not a push", trigger)
    action, result = detail.get("action-type"), detail.get("result")
    if action != "PUSH" or result != "SUCCESS":
        return Skipped(f"ECR {action} {result} is not a successful push", trigger)
    media_type = detail.get("artifact-media-type")
    if media_type != HELM_CONFIG_MEDIA_TYPE:
        what = f"artifact media type {media_type!r}" if media_type else "no artifact media type"
        return Skipped(f"{url}: {what}, not a Helm chart ({HELM_CONFIG_MEDIA_TYPE})", trigger)
    if not tag:
        return Skipped(f"{url}@{digest}: pushed without a tag, so no chart version", trigger)
    return Push("ecr", url, tag=tag, digest=digest, event_id=str(event.get("id") or ""))


def _direct(event: dict[str, Any]) -> DirectRun | Invalid:
    unknown = sorted(str(k) for k in event if k not in DIRECT_KEYS)
    if unknown:
        return Invalid(f"unknown key {unknown[0]!r} in a direct invocation (it takes "
                       f"{', '.join(DIRECT_KEYS)})")
    spec, ref = event.get("spec"), event.get("specRef")
    if spec is not None and ref is not None:
        return Invalid("give spec or specRef, not both")
    if spec is not None and not isinstance(spec, dict | str):
        return Invalid(f"spec: must be a mapping or its YAML/JSON text, not a {_kind(spec)}")
    if ref is not None and not (isinstance(ref, str) and ref):
        return Invalid("specRef: must be a non-empty string (s3://BUCKET/KEY, ssm:NAME or a file of the package)")
    environment = event.get("environment", "")
    if not isinstance(environment, str):
        return Invalid(f"environment: must be a string, not a {_kind(environment)}")
    releases = event.get("releases", [])
    if not isinstance(releases, list) or not all(isinstance(r, str) and r for r in releases):
        return Invalid("releases: must be a list of release names (NAME or NAMESPACE/NAME)")
    plan = event.get("plan", False)
    if not isinstance(plan, bool):
        return Invalid(f"plan: must be true or false, not a {_kind(plan)}")
    return DirectRun(spec, ref or "", environment, tuple(releases), plan)


def _dig(data: dict[str, Any], *path: str) -> Any:
    for key in path:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _kind(value: Any) -> str:
    names = {dict: "mapping", list: "list", str: "string", bool: "boolean", int: "number",
             float: "number", type(None): "null"}
    return names.get(type(value), type(value).__name__)
