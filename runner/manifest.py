"""Rendered files into Kubernetes documents, as Helm's pkg/release/v1/util does.

`split_manifests` is SplitManifests (same separator regex, same trimming),
`sort_manifests` is SortManifests: files in sorted path order, partials and
blank files skipped, each document's head (apiVersion, kind, metadata.name,
metadata.annotations) read (and remembered across runs: see _HeadReader),
documents with a `helm.sh/hook` annotation turned into hooks, then both
lists stably sorted by kind in install order. Every
document keeps the template path it came from and its first line there, so
later stages (diff, check-run annotations) can point back at the source.
Given the files' SourceMaps (engine.render_chart(..., track_positions=True)),
documents also answer `source_for(line)`: the template file and line that
produced a line of the document (`source_line` for its first line).
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence

from runner import diskcache, heads_cache
from runner.encoding import yamlcache
from runner.errors import RunnerError
from runner.heads_cache import HeadTypeError, head_string, head_type_error
from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

HOOK_ANNOTATION = "helm.sh/hook"
HOOK_WEIGHT_ANNOTATION = "helm.sh/hook-weight"
HOOK_DELETE_ANNOTATION = "helm.sh/hook-delete-policy"
HOOK_OUTPUT_LOG_ANNOTATION = "helm.sh/hook-output-log-policy"

# Helm's hook events; "test-success" is the old name of "test".
HOOK_EVENTS = {
    "pre-install": "pre-install",
    "post-install": "post-install",
    "pre-delete": "pre-delete",
    "post-delete": "post-delete",
    "pre-upgrade": "pre-upgrade",
    "post-upgrade": "post-upgrade",
    "pre-rollback": "pre-rollback",
    "post-rollback": "post-rollback",
    "test": "test",
    "test-success": "test",
}

INSTALL_ORDER: tuple[str, ...] = (
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
)

UNINSTALL_ORDER: tuple[str, ...] = (
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "APIService",
    "Ingress",
    "IngressClass",
    "Service",
    "CronJob",
    "Job",
    "StatefulSet",
    "HorizontalPodAutoscaler",
    "Deployment",
    "ReplicaSet",
    "ReplicationController",
    "Pod",
    "DaemonSet",
    "RoleBindingList",
    "RoleBinding",
    "RoleList",
    "Role",
    "ClusterRoleBindingList",
    "ClusterRoleBinding",
    "ClusterRoleList",
    "ClusterRole",
    "CustomResourceDefinition",
    "PersistentVolumeClaim",
    "PersistentVolume",
    "StorageClass",
    "ConfigMap",
    "SecretList",
    "Secret",
    "ServiceAccount",
    "PodDisruptionBudget",
    "PodSecurityPolicy",
    "LimitRange",
    "ResourceQuota",
    "NetworkPolicy",
    "Namespace",
    "PriorityClass",
)

# Go's regexp `\s` is ASCII only.
_REGEXP_SPACE = "\t\n\f\r "
# Go's strings.TrimSpace trims unicode.IsSpace runes.
_GO_SPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

class ManifestError(RunnerError):
    """A rendered document is not valid YAML (Helm: `YAML parse error on ...`)."""


def go_trim_space(text: str) -> str:
    """strings.TrimSpace: Go's notion of white space, not Python's."""
    return text.strip(_GO_SPACE)


class Chunk(Record):
    """One document of a file after SplitManifests, with its first line (1-based)
    and the offset of its first character in the file."""

    __slots__ = ("content", "line", "offset")

    def __init__(self, content: str, line: int, offset: int = 0) -> None:
        self.content = content
        self.line = line
        self.offset = offset


def split_with_lines(big_file: str) -> list[Chunk]:
    """SplitManifests keeping where each document starts in `big_file`."""
    lead = len(big_file) - len(big_file.lstrip(_GO_SPACE))
    trimmed = go_trim_space(big_file)
    chunks: list[Chunk] = []
    start, line, counted = 0, 1, 0
    for sep_start, sep_end in [*_separators(trimmed), (len(trimmed), len(trimmed))]:
        piece = trimmed[start:sep_start]
        if piece:
            inner_lead = len(piece) - len(piece.lstrip(_GO_SPACE))
            offset = lead + start + inner_lead
            line += big_file.count("\n", counted, offset)
            counted = offset
            chunks.append(Chunk(go_trim_space(piece), line, offset))
        start = sep_end
    return chunks


def _separators(text: str) -> list[tuple[int, int]]:
    """Where Helm's separator regexp `(?:^|\\s*\\n)---\\s*` splits `text`.

    Found with str.find rather than a regex: Python's engine tries the
    pattern's leading `\\s*` at every position, ~40x slower on big files.
    A span starts at its newline, not at the white space before it, which
    trimming takes off the document anyway.
    """
    spans: list[tuple[int, int]] = []
    pos = 0
    if text.startswith("---"):
        pos = _skip_regexp_space(text, 3)
        spans.append((0, pos))
    while (newline := text.find("\n---", pos)) >= 0:
        pos = _skip_regexp_space(text, newline + 4)
        spans.append((newline, pos))
    return spans


def _skip_regexp_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _REGEXP_SPACE:
        pos += 1
    return pos


def split_manifests(big_file: str) -> dict[str, str]:
    """SplitManifests: `manifest-N` -> document, N in order of appearance."""
    return {f"manifest-{i}": c.content for i, c in enumerate(split_with_lines(big_file))}


def split_manifests_order_key(key: str) -> int:
    """BySplitManifestsOrder: the number after `manifest-`."""
    return int(key.rsplit("-", 1)[-1])


class Head(Record):
    """SimpleHead: what Helm reads of every document."""

    __slots__ = ("version", "kind", "name", "annotations")

    def __init__(self, version: str = "", kind: str = "", name: str = "",
                 annotations: Mapping[str, str] | None = None) -> None:
        self.version = version
        self.kind = kind
        self.name = name
        self.annotations = annotations


class _Sourced:
    """Source lookups of a document whose rendered file has a SourceMap (`positions`)."""

    __slots__ = ()
    positions: Any
    offset: int

    def _document(self) -> str:
        raise NotImplementedError

    def source_position(self, line: int) -> Any:
        """The SourcePos (runner.template.positions) behind line `line` (1-based) of the
        document: its first non-blank character's template file and line, plus the
        innermost define; None without positions or past the end."""
        if self.positions is None or line < 1:
            return None
        from runner.template.positions import first_nonblank

        text, start = self._document(), 0
        for _ in range(line - 1):
            start = text.find("\n", start) + 1
            if start == 0:
                return None
        return self.positions.position_at(first_nonblank(self.positions.text, self.offset + start))

    def source_for(self, line: int) -> tuple[str, int] | None:
        """(template path, line) that produced line `line` (1-based) of the document,
        e.g. ("mychart/templates/deploy.yaml", 12); inside an include or template
        call, the call's line in that file."""
        pos = self.source_position(line)
        return None if pos is None else (pos.path, pos.line)

    @property
    def source_line(self) -> int | None:
        """The template line the document's first non-blank content came from."""
        src = self.source_for(1)
        return None if src is None else src[1]


class Manifest(_Sourced, Record):
    """A non-hook document (Helm's releaseutil.Manifest) and where it came from."""

    __slots__ = ("name", "content", "head", "line", "offset", "positions")
    _compared = ("name", "content", "head", "line", "offset")

    def __init__(self, name: str, content: str, head: Head, line: int = 1, offset: int = 0,
                 positions: Any = None) -> None:
        self.name = name  # the template path, e.g. mychart/templates/deploy.yaml
        self.content = content
        self.head = head
        self.line = line  # first line of the document in the rendered template
        self.offset = offset  # its first character in the rendered template
        self.positions = positions  # the file's SourceMap

    def _document(self) -> str:
        return self.content


class Hook(_Sourced, Record):
    """A hook document (Helm's release.Hook) and where it came from."""

    __slots__ = ("name", "kind", "path", "manifest", "events", "weight", "delete_policies",
                 "output_log_policies", "line", "offset", "positions")
    _compared = __slots__[:-1]

    def __init__(self, name: str, kind: str, path: str, manifest: str,
                 events: list[str] | None = None, weight: int = 0,
                 delete_policies: list[str] | None = None,
                 output_log_policies: list[str] | None = None, line: int = 1, offset: int = 0,
                 positions: Any = None) -> None:
        self.name = name
        self.kind = kind
        self.path = path
        self.manifest = manifest
        self.events = [] if events is None else events
        self.weight = weight
        self.delete_policies = [] if delete_policies is None else delete_policies
        self.output_log_policies = [] if output_log_policies is None else output_log_policies
        self.line = line
        self.offset = offset
        self.positions = positions

    def _document(self) -> str:
        return self.manifest


class SortedManifests(Record):
    """What SortManifests gives back."""

    __slots__ = ("hooks", "manifests", "warnings")

    def __init__(self, hooks: list[Hook], manifests: list[Manifest], warnings: list[str]) -> None:
        self.hooks = hooks
        self.manifests = manifests
        self.warnings = warnings  # Helm's slog lines on stderr


def sort_manifests(
    files: Mapping[str, str],
    ordering: Sequence[str] = INSTALL_ORDER,
    on_warning: Callable[[str], None] | None = None,
    positions: Mapping[str, Any] | None = None,
) -> SortedManifests:
    """SortManifests: hooks and manifests from rendered files, sorted by kind.

    `positions` (path -> SourceMap, RenderResult.positions()) lets every
    document answer source_for(line). Warnings (Helm's slog lines) are collected and, as Helm logs them while it
    sorts, also passed to `on_warning` at once (so they precede an error).
    """
    hooks: list[Hook] = []
    generic: list[Manifest] = []
    warnings: list[str] = []
    paths = [path for path in sorted(files)
             if not posixpath.basename(path).startswith("_") and go_trim_space(files[path])]
    heads = _HeadReader(paths)
    for path in paths:
        smap = positions.get(path) if positions else None
        for chunk in split_with_lines(files[path]):
            head = heads.head(chunk.content, path)
            hook_types = _hook_annotation(head)
            if hook_types is None:
                generic.append(Manifest(path, chunk.content, head, chunk.line, chunk.offset, smap))
                continue
            hook = _as_hook(head, path, chunk, smap)
            if hook is None:
                warnings.append(_unknown_hooks(hook_types))
                if on_warning is not None:
                    on_warning(warnings[-1])
            else:
                hooks.append(hook)
    heads.save()
    return SortedManifests(
        sort_by_kind(hooks, lambda h: h.kind, ordering),
        sort_by_kind(generic, lambda m: m.head.kind, ordering),
        warnings,
    )


def _unknown_hooks(hook_types: str) -> str:
    from runner.golang.slog import text_line

    return text_line("INFO", "skipping unknown hooks", {"hookTypes": hook_types})


def _hook_annotation(head: Head) -> str | None:
    if not head.annotations:
        return None
    return head.annotations.get(HOOK_ANNOTATION)


def _as_hook(head: Head, path: str, chunk: Chunk, smap: Any = None) -> Hook | None:
    """A Hook for a document with a known helm.sh/hook value; None otherwise."""
    hook_types = _hook_annotation(head)
    if hook_types is None:
        return None
    events = []
    for raw in hook_types.split(","):
        event = HOOK_EVENTS.get(raw.strip().lower())
        if event is None:  # Helm skips documents with an unknown hook type
            return None
        events.append(event)
    annotations = head.annotations or {}
    return Hook(
        name=head.name,
        kind=head.kind,
        path=path,
        manifest=chunk.content,
        events=events,
        weight=_atoi(annotations.get(HOOK_WEIGHT_ANNOTATION, "")),
        delete_policies=_annotation_list(annotations, HOOK_DELETE_ANNOTATION),
        output_log_policies=_annotation_list(annotations, HOOK_OUTPUT_LOG_ANNOTATION),
        line=chunk.line,
        offset=chunk.offset,
        positions=smap,
    )


def _annotation_list(annotations: Mapping[str, str], key: str) -> list[str]:
    value = annotations.get(key)
    if not value:
        return []
    return [v.strip() for v in value.split(",")]


def _atoi(text: str) -> int:
    """strconv.Atoi, 0 on any error (as calculateHookWeight)."""
    digits = text[1:] if text.startswith(("+", "-")) else text
    if not (digits.isascii() and digits.isdigit()):
        return 0
    value = int(text)
    return value if -(2**63) <= value < 2**63 else 0


_META_STRUCT = 'struct { Name string "json:\\"name\\""; Annotations map[string]string "json:\\"annotations\\"" }'


_HEAD_KEYS = ("apiVersion", "kind", "metadata")


class _HeadReader:
    """SimpleHeads of rendered documents, their YAML parsed or their spans remembered.

    Helm converts each whole document to JSON to read its head, so all of it
    must parse; of a mapping only the head's keys are built (goyaml.load_fields).
    One diskcache entry per chart (the templates' top directory) maps each
    document, by a keyed digest, to where its head values are written in it
    (runner.heads_cache), so a run that renders what the chart's last run did
    reads one entry and parses nothing. Neither the documents nor their heads
    are stored: a value passed with --set or -f never reaches the disk. Only a
    run whose documents all parsed stores an entry: YAML errors come from the
    parser every time.
    """

    def __init__(self, paths: list[str]) -> None:
        charts = sorted({path.split("/", 1)[0] for path in paths})
        self.key = diskcache.digest("\0".join([*_HEAD_KEYS, *charts]).encode("utf-8", "surrogateescape"))
        self.key += yamlcache.reader_fingerprint()
        known = yamlcache.get(_HEADS_KIND, self.key)
        self.known: dict[str, Any] = known if type(known) is dict else {}
        self.used: dict[str, Any] = {}

    def head(self, content: str, path: str) -> Head:
        """The SimpleHead of one document; a YAML error is Helm's `YAML parse error on`."""
        key = diskcache.secret_digest(content.encode("utf-8", "surrogatepass"))
        spans = self.known.get(key, yamlcache.MISSING) if key is not None else yamlcache.MISSING
        if spans is not yamlcache.MISSING:
            fields = heads_cache.read_head(content, spans)
            if fields is not None:
                self.used[key] = spans
                return Head(*fields)
        try:
            from runner.encoding import goyaml

            fields, node = goyaml.load_fields_and_node(content, _HEAD_KEYS, ints=True)
        except Exception as err:  # the reader's own error text is the reason
            reason = getattr(err, "unmarshal_message", None) or str(err)
            raise ManifestError(f"YAML parse error on {path}: {reason}") from err
        try:
            head = _head_of(fields)
        except HeadTypeError as err:
            raise ManifestError(f"YAML parse error on {path}: error unmarshaling JSON: "
                                f"while decoding JSON: json: {err}") from err
        if key is not None:
            annotations = dict(head.annotations) if head.annotations is not None else None
            spans = heads_cache.spans_of(content, node, (head.version, head.kind, head.name, annotations))
            if spans is not None:
                self.used[key] = spans
        return head

    def save(self) -> None:
        """Remember this run's documents, unless they are what was remembered."""
        if self.used != self.known:
            yamlcache.put(_HEADS_KIND, self.key, self.used)
            _forget_former_heads()


# Spans of head values; "manifest-heads" held the values themselves (keyed by plain digests
# of the documents) and is removed when this one is written.
_HEADS_KIND = "manifest-spans"


def _forget_former_heads() -> None:
    former = diskcache.kind_dir("manifest-heads")
    if not os.path.isdir(former):
        return
    try:  # flat: one file per entry (shutil would import zlib)
        for entry in os.scandir(former):
            os.unlink(entry.path)
        os.rmdir(former)
    except OSError:
        pass  # another run is at it; the next write tries again


def _head_of(doc: Any) -> Head:
    if doc is None:
        return Head()
    if not isinstance(doc, dict):
        raise head_type_error(doc, "Go value of type util.SimpleHead")
    meta = doc.get("metadata")
    if meta is not None and not isinstance(meta, dict):
        raise head_type_error(meta, f"Go struct field SimpleHead.metadata of type {_META_STRUCT}")
    meta = meta or {}
    annotations = meta.get("annotations")
    if annotations is not None and not isinstance(annotations, dict):
        raise head_type_error(annotations, "Go struct field .metadata.annotations of type map[string]string")
    return Head(
        version=head_string(doc.get("apiVersion"), "SimpleHead.apiVersion"),
        kind=head_string(doc.get("kind"), "SimpleHead.kind"),
        name=head_string(meta.get("name"), ".metadata.name"),
        annotations={str(k): head_string(v, ".metadata.annotations") for k, v in annotations.items()}
        if annotations is not None
        else None,
    )


def sort_by_kind(items: Iterable[Any], kind_of: Callable[[Any], str], ordering: Sequence[str]) -> list[Any]:
    """Stable sort by kind: known kinds in `ordering`, unknown kinds last, by name."""
    rank = {kind: i for i, kind in enumerate(ordering)}
    unknown = len(ordering)

    def key(item: Any) -> tuple[int, str]:
        kind = kind_of(item)
        position = rank.get(kind)
        return (position, "") if position is not None else (unknown, kind)

    return sorted(items, key=key)


def hooks_for_event(hooks: Iterable[Hook], event: str) -> list[Hook]:
    """Hooks of one event in execution order: by weight, then by name (Helm's sort)."""
    selected = [h for h in hooks if event in h.events]
    return sorted(selected, key=lambda h: (h.weight, h.name))


def is_test_hook(hook: Hook) -> bool:
    return "test" in hook.events
