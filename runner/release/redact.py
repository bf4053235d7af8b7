"""The one redaction layer: secret values hidden from everything a user or a report sees.

Hook logs, failure evidence, `test --logs`, and everything `run` shows (what its releases
tell, its text, markdown and JSON result, the GitHub report, its `::add-mask::` lines and
the pull request comment) pass their text through a `Redactor` before it is printed,
stored or sent; each is replaced by MASK. An action holds one
(ActionConfig.redactor), filled from what is secret in that run:

    redactor = Redactor()
    redactor.add_values(tree)        # every leaf the user marked secret: --secret-values
                                     # files and --set-file values (runner.chart.uservalues)
    redactor.add_release(release)    # the data of every Secret of a release (manifest and hooks),
                                     # and its identifiers (add_identifiers)
    redactor.add_manifest(text)      # ... of any manifest (a diff's old and new sides)
    redactor.add(value)              # one secret string
    redactor.add_identifiers(objs)   # the public identifiers of objects (kind, name, data keys)
    redactor.add_public(words)       # public words a secret's occurrence inside stays shown in
    redactor.redact(text)            # -> text with every secret form replaced by MASK
    redactor.redact_lines(lines)     # -> the same, line by line
    redactor.redact_data(tree)       # -> a copy of a JSON-like tree, its strings redacted
    redactor.forms()                 # -> every form hidden (what `::add-mask::` is given)
    redactor.listen(hear)            # hear(forms) now with every form, then with each new one
    with redactor.hiding_errors(): ...  # an error raised inside is raised with secrets hidden

`deploy-runner run` shares one Redactor among its releases (RunOptions.redactor): what any
release marks secret is hidden from every release's output and from the run's reports.
A Redactor may be filled and used from several threads at once.

What is hidden, for each secret value:
- the value itself, as written and without surrounding whitespace; a multi-line value
  also line by line (logs are read a line at a time);
- its standard and URL-safe base64, whole (as a Secret's `data` holds it) and at each of
  the three alignments it can take inside longer base64 text (at its end, with the
  padded last group);
- its JSON-escaped form (a value with quotes or newlines, as JSON prints it).

A number counts by its text as Go prints it (a float64 value 1000000 is `1e+06`, as a
template shows it).

Values shorter than MIN_LENGTH (3) characters, booleans, nulls and the plain words YAML
reads as such are not secrets to hide: masking "on" or "true" would hide ordinary
text and reveal nothing. Longer values are masked wherever they appear, even inside
a longer word: a secret may be printed glued to anything.

Except inside a public identifier: the kinds, names and namespaces of a release's
objects, the release's name and namespace, and the keys (not the values) of its Secrets'
and ConfigMaps' data are shown by the cluster's metadata and `kubectl describe` to anyone
who may list the objects, without reading a Secret. An occurrence of a secret form that
lies inside an occurrence of a longer public word is left as it is (the Secret
`elasticsearch-master-credentials` of a release whose username is `elastic` keeps its
name, in every output), so every output names the release's objects as the cluster does,
whatever secrets the redactor has learned (`run --plan`, which reads no Secret, and `run`
name them alike). Nothing else is shown: the same value elsewhere, whole or glued to other
text, in any form, is masked; a secret that contains a public word, or equals one, or
begins inside one and goes beyond it, is masked whole (occurrences that overlap are
masked as one). GitHub's `::add-mask::` (`forms()`) cannot be scoped: its log masking hides
every form in the job's log, inside identifiers too.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from runner.release.record import Release

MASK = "[REDACTED]"
MIN_LENGTH = 3
_PLAIN_WORDS = frozenset({"true", "false", "null", "none", "yes", "off"})
_MIN_BASE64_PIECE = 6  # an aligned piece shorter than this would match by chance


class Redactor:
    """Secret values and every form of them that can reach text; `redact` hides them."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._forms: set[str] = set()
        self._public: set[str] = set()
        self._matcher: _Matcher | None = None  # made again once a form or word is added
        self._pattern: re.Pattern[str] | None = None  # that of the forms in _pattern_forms
        self._pattern_forms: set[str] | None = None
        self._lock = threading.Lock()  # a run's releases add and redact at once
        self._listeners: list[Callable[[list[str]], None]] = []
        for value in values:
            self.add(value)

    def __bool__(self) -> bool:
        return bool(self._forms)

    # -- what is secret ------------------------------------------------------------

    def add(self, value: Any) -> None:
        """One secret value (a string; numbers count by their text, booleans never)."""
        if value is None or isinstance(value, bool):
            return
        text = _text(value)
        pieces = [text, *text.splitlines()] if "\n" in text else [text]
        forms: set[str] = set()
        for piece in pieces:
            stripped = piece.strip()
            if len(stripped) >= MIN_LENGTH and stripped.lower() not in _PLAIN_WORDS:
                # as written too: the base64 of "cert\n" (a YAML block scalar) is not that of "cert"
                forms |= _forms_of(stripped) | _forms_of(piece)
        with self._lock:
            new = forms - self._forms
            if not new:
                return
            self._forms = self._forms | new  # a new set: a reader's copy stays whole
            self._matcher = None
            listeners = list(self._listeners)
        # outside the lock (a listener may redact), before `add` returns: whatever is
        # printed once the value is known comes after its listeners heard it
        for hear in listeners:
            hear(sorted(new, key=len, reverse=True))

    def add_values(self, tree: Any) -> None:
        """Every leaf of a values tree (maps and lists walked)."""
        if isinstance(tree, dict):
            for item in tree.values():
                self.add_values(item)
        elif isinstance(tree, list):
            for item in tree:
                self.add_values(item)
        else:
            self.add(tree)

    def add_public(self, words: Iterable[str]) -> None:
        """Public words (identifiers): a secret's occurrence inside one stays shown there."""
        # a word no longer than the shortest secret can hold none
        fresh = {word for word in words if isinstance(word, str) and len(word) > MIN_LENGTH}
        with self._lock:
            if fresh <= self._public:
                return
            self._public = self._public | fresh
            self._matcher = None

    def add_identifiers(self, objects: Iterable[Any]) -> None:
        """The public identifiers of objects (parsed manifest documents): each one's kind,
        name and namespace, and the keys of a Secret's or ConfigMap's data."""
        self.add_public(word for obj in objects if isinstance(obj, dict) for word in _identifiers(obj))

    def add_manifest(self, manifest: str) -> None:
        """The data of every Secret in a multi-document manifest (`data` decoded from
        base64, `stringData` as written), and the identifiers of its objects. A manifest
        that does not parse adds nothing."""
        documents = _documents(manifest)
        self.add_identifiers(documents)
        for obj in documents:
            if obj.get("kind") != "Secret":
                continue
            for item in (obj.get("data") or {}).values():
                decoded = _decoded(item)  # its base64 forms cover the text in the manifest
                self.add(item if decoded is None else decoded)
            for item in (obj.get("stringData") or {}).values():
                self.add(item)

    def add_release(self, release: Release) -> None:
        """The Secrets of a release, its manifest's and its hooks', and its identifiers
        (its name and namespace, its objects' and its hooks')."""
        self.add_public([release.name, release.namespace])
        self.add_manifest(release.manifest)
        for hook in release.hooks:
            self.add_manifest(hook.manifest)

    # -- hiding ----------------------------------------------------------------------

    def forms(self) -> list[str]:
        """Every form hidden, longest first."""
        return sorted(self._forms, key=len, reverse=True)

    def listen(self, hear: Callable[[list[str]], None]) -> None:
        """`hear(forms)` at once with every form hidden so far, then with the forms of each
        value learned later (a release's Secrets, a previous revision's secrets), from the
        thread that learns them, before anything can show them: GitHub's `::add-mask::`
        must come before the value's first appearance in the job's log."""
        with self._lock:
            self._listeners.append(hear)
            known = self._forms
        hear(sorted(known, key=len, reverse=True))

    @contextlib.contextmanager
    def hiding_errors(self) -> Iterator[None]:
        """An error raised inside shows no secret: raised again as `redacted_error` makes
        it (itself, traceback and all, when its text holds none)."""
        try:
            yield
        except Exception as err:
            hidden = self.redacted_error(err)
            if hidden is err:
                raise
            raise hidden from None

    def redacted_error(self, err: Exception) -> Exception:
        """`err` itself when its text shows no secret, else a RunnerError of the same text
        (an internal error's one line) and exit code with the secrets hidden: the error the
        CLI prints when a run stops."""
        from runner.errors import RunnerError, internal_error

        failure = err if isinstance(err, RunnerError) else internal_error(err)
        message, details = self.redact(str(failure)), self.redact(failure.details)
        if message == str(failure) and details == failure.details:
            return err
        hidden = RunnerError(message)
        hidden.details, hidden.exit_code = details, failure.exit_code
        return hidden

    def redact(self, text: str) -> str:
        if not self._forms or not text:
            return text
        shown, last = [], 0
        for start, end in self._compiled().hidden_spans(text):
            shown += [text[last:start], MASK]
            last = end
        return "".join(shown) + text[last:] if shown else text

    def redact_lines(self, lines: Iterable[str]) -> list[str]:
        return [self.redact(line) for line in lines]

    def redact_data(self, tree: Any) -> Any:
        if isinstance(tree, str):
            return self.redact(tree)
        if isinstance(tree, dict):
            return {key: self.redact_data(item) for key, item in tree.items()}
        if isinstance(tree, list):
            return [self.redact_data(item) for item in tree]
        return tree

    def _compiled(self) -> _Matcher:
        with self._lock:
            if self._matcher is None:
                # public words come and go with every release's objects: the pattern, which
                # depends on the forms alone, is kept while they stay the same
                pattern = self._pattern if self._pattern_forms is self._forms else None
                self._matcher = _Matcher(self._forms, self._public, pattern)
                self._pattern, self._pattern_forms = self._matcher.pattern, self._forms
            return self._matcher


def forms_pattern(forms: Iterable[str]) -> re.Pattern[str]:
    """One regex finding every form, the longest one at an offset (a whole base64 value wins
    over its aligned pieces). The forms are laid out as a trie, each branch tried before the
    end of a shorter form, so that at an offset only the forms beginning with its character
    are tried: an alternation of every form, longest first, finds the same, trying each
    form at every offset. Should the trie nest too deeply for the regex compiler, that is
    what is used."""
    ordered = sorted(forms, key=len, reverse=True)
    trie: dict[str, Any] = {}
    for form in ordered:
        node = trie
        for char in form:
            node = node.setdefault(char, {})
        node[_END] = {}
    try:
        return re.compile(_trie_regex(trie))
    except (RecursionError, re.error, OverflowError):
        return re.compile("|".join(re.escape(form) for form in ordered))


_END = ""  # the key marking, in the trie, that a form ends there


def _trie_regex(node: dict[str, Any]) -> str:
    """The regex of the forms below `node`; a run of single-child nodes is one literal."""
    branches = []
    for char, child in sorted(node.items()):
        if char == _END:
            continue
        literal = [char]
        while len(child) == 1 and _END not in child:  # a chain: no choice, no end
            (char, child), = child.items()
            literal.append(char)
        branches.append(re.escape("".join(literal)) + _trie_regex(child))
    if not branches:
        return ""
    body = "(?:" + "|".join(branches) + ")" if len(branches) > 1 else branches[0]
    # where a shorter form ends, the longer ones are tried first (a greedy optional group)
    return "(?:" + body + ")?" if _END in node else body


class _Matcher:
    """Finds what to mask in a text, for one state of a Redactor's forms and public words."""

    def __init__(self, forms: set[str], public: set[str], pattern: re.Pattern[str] | None = None) -> None:
        self.pattern = pattern if pattern is not None else forms_pattern(forms)
        self._pattern = self.pattern
        self._public = tuple(public)
        self._shelters: dict[str, list[tuple[str, int]]] = {}  # form -> (longer public word, offset in it)

    def hidden_spans(self, text: str) -> list[tuple[int, int]]:
        """The spans of `text` to mask, in order and apart: every occurrence of a form not
        inside an occurrence of a longer public word, overlapping ones joined into one."""
        spans: list[tuple[int, int]] = []
        found = self._pattern.search(text)
        while found is not None:
            start, end = found.span()  # the longest form starting at `start`
            if not self._sheltered(text, found.group(), start):
                if spans and start < spans[-1][1]:
                    spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
                else:
                    spans.append((start, end))
            # on from the next offset: an occurrence may begin inside this one and go further
            found = self._pattern.search(text, start + 1)
        return spans

    def _sheltered(self, text: str, form: str, start: int) -> bool:
        """Whether `form`, found at `start`, lies inside an occurrence of a longer public word.
        (The longest form at an offset decides: a shorter one there lies inside it.)"""
        shelters = self._shelters.get(form)
        if shelters is None:  # a dict's get and set hold under threads; computing twice is harmless
            shelters = self._shelters[form] = [(word, offset) for word in self._public if len(word) > len(form)
                                               for offset in _offsets(form, word)]
        return any(offset <= start and text.startswith(word, start - offset) for word, offset in shelters)


def _offsets(part: str, word: str) -> list[int]:
    """Every offset of `part` in `word` (overlapping ones too)."""
    found, at = [], word.find(part)
    while at >= 0:
        found.append(at)
        at = word.find(part, at + 1)
    return found


def _text(value: Any) -> str:
    """A value as a template prints it (Go's formatting of a float64)."""
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        from runner.golang.strconv import format_float

        return format_float(value, "g", -1, 64)
    return str(value)


def _forms_of(value: str) -> set[str]:
    forms = {value}
    escaped = json.dumps(value)[1:-1]
    if escaped != value:
        forms.add(escaped)
    data = value.encode("utf-8", "surrogateescape")  # a file's undecodable bytes, as read
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        forms.update({whole, whole.rstrip("=")})
        forms.update(piece for piece in _aligned_pieces(data, encode) if len(piece) >= _MIN_BASE64_PIECE)
    return forms


def _aligned_pieces(data: bytes, encode: Any) -> list[str]:
    """The base64 characters that depend on `data` alone when it starts at byte offset
    0, 1 or 2 of a 3-byte group inside some longer encoded text; and, when it ends that
    text, the same with its last (padded) group."""
    pieces = []
    for offset in range(3):
        padded = b"\0" * offset + data
        encoded = encode(padded).decode("ascii")
        first = 4 if offset else 0  # the first group mixes in the bytes before the value
        last = len(padded) // 3 * 4  # a last, partial group mixes in the bytes after it
        pieces += [encoded[first:last], encoded[first:], encoded[first:].rstrip("=")]
    return pieces


def _identifiers(obj: dict[str, Any]) -> list[str]:
    """What the cluster shows of an object without reading it: kind, name, namespace, and
    the keys of its data (a Secret's or ConfigMap's)."""
    metadata = obj.get("metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    words = [obj.get("kind"), metadata.get("name"), metadata.get("namespace")]
    if obj.get("kind") in ("Secret", "ConfigMap"):
        for field in ("data", "stringData", "binaryData"):
            keys = obj.get(field)
            words += list(keys) if isinstance(keys, dict) else []
    return [word for word in words if isinstance(word, str)]


def _decoded(item: Any) -> str | None:
    if not isinstance(item, str):
        return None
    try:
        return base64.b64decode(item, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def _documents(manifest: str) -> list[dict[str, Any]]:
    from runner.encoding import goyaml

    try:
        docs = goyaml.load_all(manifest)
    except Exception:  # noqa: BLE001 - goyaml raises its own types; an unreadable manifest has no Secret to add
        return []
    return [doc for doc in docs if isinstance(doc, dict)]
