"""deploy-runner's own lint rule (Helm has none): `helm.sh/hook-output-log-policy` values.

The annotation takes `hook-succeeded` and `hook-failed`, comma-separated (spaces
allowed). Any other value is ignored at deploy time, as Helm ignores it, so a
misspelt one (the proposal's own example has `hook-suceeded`) silently shows no
logs. On a kind other than Job or Pod the annotation does nothing. Both are
warned about with the template file and the line of the annotation there:

    [WARNING] templates/job.yaml:12: unknown value "hook-suceeded" in annotation
    helm.sh/hook-output-log-policy (known: hook-succeeded, hook-failed; did you mean
    "hook-succeeded"?): it is ignored, as Helm ignores it
"""

from __future__ import annotations

import difflib
from typing import Any

from runner.lint.support import WARNING, Linter

ANNOTATION = "helm.sh/hook-output-log-policy"
KNOWN = ("hook-succeeded", "hook-failed")
LOGGED_KINDS = ("Job", "Pod")


def lint_hook_output_policies(linter: Linter, name: str, rendered: str, source: str) -> None:
    """Check every document of one rendered template (`source`: the template's text,
    where the annotation's line is looked up)."""
    from runner.manifest import split_with_lines

    lines = _annotation_lines(source)
    found = 0
    for chunk in split_with_lines(rendered):
        head = _head(chunk.content)
        if head is None:
            continue
        kind, value = head
        # The n-th annotation rendered is taken to be the n-th written (or, past the
        # last, the last: a range may render one line several times).
        line = lines[min(found, len(lines) - 1)] if lines else chunk.line
        found += 1
        where = f"{name}:{line}"
        for problem in problems(kind, value):
            linter.run_rule(WARNING, where, problem)


def problems(kind: str, value: str) -> list[str]:
    """What is wrong with one annotation value on an object of `kind`."""
    found = []
    for item in (v.strip() for v in value.split(",")):
        if item in KNOWN:
            continue
        guess = difflib.get_close_matches(item, KNOWN, n=1)
        hint = f'; did you mean "{guess[0]}"?' if guess else ""
        found.append(f'unknown value "{item}" in annotation {ANNOTATION} (known: {", ".join(KNOWN)}{hint}): '
                     "it is ignored, as Helm ignores it")
    if kind not in LOGGED_KINDS:
        found.append(f"annotation {ANNOTATION} on a {kind or 'document without a kind'} does nothing: "
                     "only the logs of hook Jobs and Pods are shown")
    return found


def _annotation_lines(source: str) -> list[int]:
    return [number for number, text in enumerate(source.splitlines(), 1) if ANNOTATION in text]


def _head(document: str) -> tuple[str, str] | None:
    """(kind, the annotation's value) of a document that carries it; None otherwise."""
    if ANNOTATION not in document:
        return None
    from runner.encoding import goyaml

    try:
        obj: Any = goyaml.load(document)
    except Exception:  # noqa: BLE001 - a document that does not parse is reported by Helm's own rules
        return None
    if not isinstance(obj, dict):
        return None
    annotations = (obj.get("metadata") or {}).get("annotations") or {}
    value = annotations.get(ANNOTATION) if isinstance(annotations, dict) else None
    if value is None:
        return None
    return str(obj.get("kind") or ""), str(value)
