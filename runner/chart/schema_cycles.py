"""santhosh-tekuri/jsonschema's reference cycles, for the `jsonschema` package.

santhosh stops a schema that reaches itself again through `$ref` without
moving on in the instance (`{"$ref": "#"}`, two definitions naming each
other) and reports it as a violation at that instance location:
`both /$ref/$ref/$ref and /$ref resolve to "file:///values.schema.json#/$defs/a"
causing reference cycle` (the keyword locations of the cycle's two entries).
`jsonschema` would recurse until the stack runs out. `track_cycles` patches a
validator class of ours (made for one validation) so that every subschema
application is checked against the ones in progress.
"""

from __future__ import annotations

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any


class _Progress:
    """Where the validation is: keyword-location segments, instance location, open schemas."""

    def __init__(self, root: Any, url: str) -> None:
        self.root = root
        self.url = url
        self.segments: list[str] = []  # keywords and the schema_path steps under them
        self.open: dict[tuple[int, int], str] = {}  # (schema, instance) -> where it was entered

    def location(self) -> str:
        return "".join("/" + _escape(s) for s in self.segments)


def track_cycles(validator_cls: Any, root: Any, url: str) -> Any:
    """A copy of `validator_cls` (fresh per validation) whose descents stop at a cycle.

    `start(validator, instance)` must open the root application before iter_errors.
    """
    from jsonschema import validators

    progress = _Progress(root, url)
    wrapped = {k: _keyword(k, fn, progress) for k, fn in validator_cls.VALIDATORS.items()}
    cls = validators.extend(validator_cls, validators=wrapped)
    cls.descend = _descend(cls.descend, progress)  # our own class: set, not subclassed
    cls.cycle_progress = progress
    return cls


def start(validator: Any, instance: Any) -> None:
    """The root schema applies to the whole instance at keyword location ''."""
    validator.cycle_progress.open[(id(validator.schema), id(instance))] = ""


def _keyword(name: str, fn: Callable[..., Any], progress: _Progress) -> Callable[..., Any]:
    def run(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        progress.segments.append(name)
        try:
            errors = fn(validator, value, instance, schema)
            if errors:
                yield from errors
        finally:
            progress.segments.pop()

    return run


def _descend(original: Callable[..., Any], progress: _Progress) -> Callable[..., Any]:
    def descend(self: Any, instance: Any, schema: Any, path: Any = None,
                schema_path: Any = None, resolver: Any = None) -> Iterator[Any]:
        if schema_path is not None:
            progress.segments.append(str(schema_path))
        key = (id(schema), id(instance))
        try:
            here = progress.location()
            first = progress.open.get(key)
            if first is not None:
                yield _cycle_error(progress, here, first, schema, instance)
                return
            progress.open[key] = here
            try:
                yield from original(self, instance, schema, path, schema_path, resolver)
            finally:
                del progress.open[key]
        finally:
            if schema_path is not None:
                progress.segments.pop()

    return descend


def _cycle_error(progress: _Progress, here: str, first: str, schema: Any, instance: Any) -> Any:
    from jsonschema.exceptions import ValidationError

    url = f"{progress.url}#{_pointer_to(progress.root, schema)}"
    return ValidationError(
        f'both {here} and {first} resolve to "{url}" causing reference cycle',
        validator="$ref", validator_value=None, instance=instance, schema=schema,
    )


def _pointer_to(root: Any, target: Any) -> str:
    """The JSON pointer of `target` (a subschema object) within `root`."""
    stack: list[tuple[Any, str]] = [(root, "")]
    while stack:
        node, pointer = stack.pop()
        if node is target:
            return pointer
        if isinstance(node, dict):
            stack.extend((v, f"{pointer}/{_escape(str(k))}") for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((v, f"{pointer}/{i}") for i, v in enumerate(node))
    return ""


def _escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")
