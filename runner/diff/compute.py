"""A release's diff from its documents: the manifest view (the last release's stored
documents against the new ones, helm-diff's default) and the live view (each object as
the cluster has it against what the dry-run apply says it becomes).

Documents are keyed and ordered as helm-diff does (runner.diff.model). Hooks are
compared with the last release's hooks in both views: they are created anew at
each upgrade, so their live copies (deleted, or left from the last run) say nothing
about what the upgrade changes. Each change keeps the template file and line it
comes from, and the lines of the changed fields.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from runner.diff import objects
from runner.diff.model import ADD, MODIFY, REMOVE, ObjectChange, SourceRef
from runner.diff.objects import Identity
from runner.diff.text import DEFAULT_CONTEXT, added_lines, unified

_ORDER = {MODIFY: 0, REMOVE: 1, ADD: 2}
_SEPARATOR = "\n---\n"


@dataclass
class Document:
    """One object of a manifest as the diff sees it."""

    ident: Identity
    text: str  # as the release stores it: "# Source: PATH" then the document
    obj: dict[str, Any] | None
    hook: bool = False
    sourced: Any = None  # runner.manifest.Manifest or Hook with positions (rendered documents)

    @property
    def key(self) -> str:
        return self.ident.key


@dataclass
class LiveObject:
    """A rendered object's live copy and what the apply would make of it (a dry run)."""

    key: str
    live: dict[str, Any] | None  # None: absent, the apply creates it
    after: dict[str, Any]  # the dry run's answer, or the rendered object for a creation
    note: str = ""


def stored_documents(manifest: str, hooks: Iterable[tuple[str, str]], namespace: str
                     ) -> dict[str, Document]:
    """A release record's manifest and (path, manifest) hooks, split as helm-diff splits them
    (on `\\n---\\n`, trimmed; documents without apiVersion and kind skipped; Lists opened)."""
    docs: dict[str, Document] = {}
    _add_texts(docs, manifest, namespace, hook=False)
    for path, text in hooks:
        _add_texts(docs, f"# Source: {path}\n{text}", namespace, hook=True)
    return docs


def rendered_documents(manifests: Iterable[Any], hooks: Iterable[Any], namespace: str
                       ) -> dict[str, Document]:
    """Rendered runner.manifest.Manifest and Hook objects (with positions when rendered with
    track_positions), as they will be stored."""
    docs: dict[str, Document] = {}
    for item, hook in [*((m, False) for m in manifests), *((h, True) for h in hooks)]:
        content = item.manifest if hook else item.content
        path = item.path if hook else item.name
        _add_texts(docs, f"# Source: {path}\n{content}", namespace, hook=hook, sourced=item)
    return docs


def _add_texts(docs: dict[str, Document], text: str, namespace: str, *, hook: bool,
               sourced: Any = None) -> None:
    from runner.encoding import goyaml

    for piece in ("\n" + text).split(_SEPARATOR):
        content = piece.strip()
        if not content:
            continue
        try:
            obj = goyaml.load(content, ints=True)
        except Exception:  # noqa: BLE001 - goyaml's own errors; Helm stored or rendered it, so rare
            obj = None
        if not isinstance(obj, dict) or not (obj.get("apiVersion") or obj.get("kind")):
            continue
        items = obj.get("items") if str(obj.get("kind", "")).endswith("List") else None
        for one in items if isinstance(items, list) else [obj]:
            if isinstance(one, dict):
                text_of = content if one is obj else objects.to_yaml(one)
                doc = Document(objects.identity(one, namespace), text_of, one, hook, sourced)
                docs.setdefault(doc.key, doc)  # helm-diff keeps the first of a duplicate key


def manifest_view(old: dict[str, Document], new: dict[str, Document],
                  context: int = DEFAULT_CONTEXT) -> list[ObjectChange]:
    """helm-diff's default diff: stored documents against rendered ones, as text."""
    changes = []
    for key in old.keys() | new.keys():
        before, after = old.get(key), new.get(key)
        if after is None and before is not None and objects.keep_policy(before.obj):
            continue
        change = _text_change(before, after, context)
        if change is not None:
            changes.append(change)
    return ordered(changes)


def live_view(old: dict[str, Document], new: dict[str, Document], live: list[LiveObject],
              removed: dict[str, dict[str, Any]], context: int = DEFAULT_CONTEXT) -> list[ObjectChange]:
    """The cluster's view: `live` for every rendered object, `removed` the live copies of the
    last release's objects that this one drops; hooks as in the manifest view."""
    hooks_old = {k: d for k, d in old.items() if d.hook}
    hooks_new = {k: d for k, d in new.items() if d.hook}
    changes = manifest_view(hooks_old, hooks_new, context)
    for item in live:
        doc = new.get(item.key)
        change = _object_change(item.key, item.live, item.after, doc, context)
        if change is not None:
            change.note = item.note
            changes.append(change)
        elif item.note:  # nothing changes, but the apply still runs into something
            changes.append(_bare(item.key, MODIFY, doc, item.after, item.note))
    for key, obj in removed.items():
        change = _object_change(key, obj, None, old.get(key), context)
        if change is not None:
            changes.append(change)
    return ordered(changes)


def ordered(changes: list[ObjectChange]) -> list[ObjectChange]:
    """helm-diff's order: changed objects, then removals, then additions, each by key."""
    return sorted(changes, key=lambda c: (_ORDER[c.change], c.key))


def _text_change(before: Document | None, after: Document | None, context: int) -> ObjectChange | None:
    if before is not None and after is not None and before.text == after.text:
        return None
    old_text, new_text = _texts(before, after)
    diff = unified(old_text, new_text, context)
    if not diff:
        return None
    kind = MODIFY if before and after else (ADD if after else REMOVE)
    doc = after or before
    assert doc is not None
    change = _bare(doc.key, kind, doc, doc.obj or {}, "")
    change.diff = diff
    change.hook = doc.hook
    if objects.is_secret(doc.obj):  # its text was re-written: its lines are not the template's
        change.secret_keys = objects.hide_secrets(before and before.obj, after and after.obj)[2]
    elif after is not None and after.sourced is not None:
        lines = added_lines(old_text, new_text)
        change.changed_lines = _sources(after, [n - 1 for n in lines if n > 1])
    return change


def _texts(before: Document | None, after: Document | None) -> tuple[str, str]:
    """The two texts to compare; Secrets re-written with their values hidden."""
    doc = after or before
    if doc is None or not objects.is_secret(doc.obj):
        return (before.text if before else "", after.text if after else "")
    old, new, _ = objects.hide_secrets(before and before.obj, after and after.obj)
    return (_with_source(before, old), _with_source(after, new))


def _with_source(doc: Document | None, obj: dict[str, Any] | None) -> str:
    if doc is None or obj is None:
        return ""
    first = doc.text.split("\n", 1)[0]
    head = f"{first}\n" if first.startswith("# Source:") else ""
    return head + objects.to_yaml(obj)


def _object_change(key: str, live: dict[str, Any] | None, after: dict[str, Any] | None,
                   doc: Document | None, context: int) -> ObjectChange | None:
    before = objects.prune(live) if live is not None else None
    target = objects.prune(after) if after is not None else None
    old, new, secret_keys = objects.hide_secrets(before, target)
    diff = unified(objects.to_yaml(old), objects.to_yaml(new), context)
    if not diff:
        return None
    kind = MODIFY if live is not None and after is not None else (ADD if after is not None else REMOVE)
    change = _bare(key, kind, doc, after or live or {}, "")
    change.diff = diff
    change.secret_keys = secret_keys
    if doc is not None and doc.sourced is not None and kind != REMOVE:
        change.changed_lines = _field_sources(doc, changed_paths(before or {}, target or {}))
    return change


def _bare(key: str, kind: str, doc: Document | None, obj: dict[str, Any], note: str) -> ObjectChange:
    ident = doc.ident if doc is not None else objects.identity(obj, "")
    source = None
    if doc is not None and doc.sourced is not None:
        found = doc.sourced.source_for(1)
        source = SourceRef(*found) if found else None
    elif doc is not None and doc.text.startswith("# Source: "):  # a stored document: its file
        source = SourceRef(doc.text.split("\n", 1)[0].removeprefix("# Source: "), 1)
    return ObjectChange(key=key, kind=ident.kind, api_version=ident.api_version,
                        namespace=ident.namespace, name=ident.name, change=kind, source=source,
                        hook=bool(doc and doc.hook), note=note)


def _sources(doc: Document, lines: list[int]) -> list[SourceRef]:
    """The template lines behind `lines` of a rendered document, each once, in order."""
    found: list[SourceRef] = []
    for line in lines:
        where = doc.sourced.source_for(line)
        if where is not None and SourceRef(*where) not in found:
            found.append(SourceRef(*where))
    return found


def changed_paths(a: Any, b: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths (keys and indexes) where two values differ, as deep as both are containers."""
    if isinstance(a, dict) and isinstance(b, dict):
        found: list[tuple[Any, ...]] = []
        for key in sorted(a.keys() | b.keys(), key=str):
            if a.get(key, _MISSING) != b.get(key, _MISSING):
                found += changed_paths(a.get(key, _MISSING), b.get(key, _MISSING), (*path, key))
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        found = []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                found += changed_paths(x, y, (*path, i))
        return found
    return [path]


_MISSING = object()


def _field_sources(doc: Document, paths: list[tuple[Any, ...]]) -> list[SourceRef]:
    """The template lines that write the changed fields: each path's deepest part present in
    the rendered document, mapped through its positions."""
    from runner.encoding import goyaml

    content = doc.sourced.manifest if doc.hook else doc.sourced.content
    try:
        _, node = goyaml.load_fields_and_node(content, (), ints=True)
    except Exception:  # noqa: BLE001 - it rendered, so it parses; a diff never fails on it
        return []
    lines = []
    for path in paths:
        line = _line_of(node, path)
        if line and line not in lines:
            lines.append(line)
    return _sources(doc, lines)


def _line_of(node: Any, path: tuple[Any, ...]) -> int:
    """1-based line of the deepest node along `path` (0 when the document has none). A
    node without a position (none recorded for it) stops the descent at the line known
    so far, or the object's first line."""
    line = 0
    for part in path:
        kind = type(node).__name__
        if kind == "MappingNode":
            found = next(((k, v) for k, v in node.value if getattr(k, "value", None) == str(part)), None)
            if found is None:
                return line
            key, node = found
            where = key
        elif kind == "SequenceNode" and isinstance(part, int) and part < len(node.value):
            node = where = node.value[part]
        else:
            return line
        mark = getattr(where, "start_mark", None)
        if mark is None:
            return line or 1
        line = mark.line + 1
    return line
