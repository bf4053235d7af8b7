"""Reading a spec: a file (deploy-runner.yaml by default, `-` for standard input) or an event
payload, validated, variables substituted, resolved into the releases a run deploys.

Every problem is collected and reported at once (SpecError), each with its file,
line and field; nothing a spec holds can raise anything else.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from runner.spec.context import RunContext, VariableError, git_context
from runner.spec.errors import SpecError, validation_problems
from runner.spec.source import Loaded, Path, Problem, SourceError, load_yaml

DEFAULT_FILE = "deploy-runner.yaml"
_MAX_COERCIONS = 5  # passes that give string fields the text of scalars read as numbers


@dataclass
class LoadedSpec:
    """A usable spec: its releases (in file order), where it came from, what to warn about."""

    source: str  # the name errors use: deploy-runner.yaml, <stdin>, event payload
    base_dir: str  # charts and values paths are relative to it
    releases: list[Any] = field(default_factory=list)  # runner.spec.resolve.ReleaseSpec
    warnings: list[str] = field(default_factory=list)
    model: Any = None  # runner.spec.models.Spec
    eks: Any = None  # the chosen environment's `eks` (runner.spec.models.Eks), or None

    def cluster_access(self, access: Any) -> Any:
        """The cluster this spec's environment deploys to (see environment_access)."""
        return environment_access(access, self.eks)


def environment_access(access: Any, eks: Any) -> Any:
    """`access` (runner.kube's ClusterAccess: the command line's, a Lambda's configuration)
    with an environment's `eks` cluster (runner.spec.models.Eks, or None) when `access`
    names no cluster itself."""
    if eks is None:
        return access
    return access.or_eks(eks.cluster, eks.region, eks.role_arn)


# The namespace of releases that name none: given, or decided once the environment is known
# (from its `eks`, or None: an EKS cluster has no kubeconfig context to take one from).
DefaultNamespace = str | Callable[[Any], str]


def spec_path(path: str = DEFAULT_FILE, cwd: str = ".") -> str:
    """Where the spec named `path` is: as given, except that the default file missing from
    `cwd` is looked for at the root of the repository `cwd` is in (the nearest directory
    above it holding .git), so a run from a subdirectory finds the repository's spec."""
    if path != DEFAULT_FILE or os.path.exists(os.path.join(cwd, path)):
        return path
    directory = os.path.abspath(cwd)
    while not os.path.exists(os.path.join(directory, ".git")):
        parent = os.path.dirname(directory)
        if parent == directory:
            return path
        directory = parent
    found = os.path.join(directory, DEFAULT_FILE)
    return os.path.relpath(found, cwd) if os.path.isfile(found) else path


def read_spec(path: str = DEFAULT_FILE) -> tuple[str, str, str]:
    """(name for messages, base directory, text) of the spec at `path` (`-`: standard input)."""
    from runner.errors import RunnerError

    if path == "-":
        return "<stdin>", os.getcwd(), sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        hint = " (write one, or name it with --spec)" if path == DEFAULT_FILE else ""
        raise RunnerError(f"open {path}: no such file or directory{hint}") from None
    except IsADirectoryError:
        raise RunnerError(f"read {path}: is a directory") from None
    except UnicodeDecodeError as err:
        raise RunnerError(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    except OSError as err:
        raise RunnerError(f"open {path}: {(err.strerror or str(err)).lower()}") from None
    return path, os.path.dirname(os.path.abspath(path)), text


def load_spec(path: str = DEFAULT_FILE, *, environment: str = "default",
              context: RunContext | None = None, default_namespace: DefaultNamespace = "default") -> LoadedSpec:
    """The spec at `path` (see spec_path), ready to run (SpecError lists every problem)."""
    source, base_dir, text = read_spec(spec_path(path))
    context = context or git_context(environment, base_dir)
    return parse_spec(text, source, base_dir, context=context, default_namespace=default_namespace)


def parse_spec(text: str, source: str, base_dir: str, *, context: RunContext,
               default_namespace: DefaultNamespace = "default") -> LoadedSpec:
    """A spec's text (YAML; JSON is YAML) validated and resolved."""
    try:
        loaded = load_yaml(text)
    except SourceError as err:
        raise SpecError(source, err.problems) from None
    return _from_loaded(loaded, source, base_dir, context, default_namespace)


def spec_from_payload(data: Any, *, context: RunContext, base_dir: str = ".",
                      source: str = "event payload", default_namespace: DefaultNamespace = "default") -> LoadedSpec:
    """A spec inside an event: a mapping (repository_dispatch's client_payload.spec, a Lambda
    invocation's `spec`) or its YAML/JSON text (a workflow_dispatch input)."""
    if isinstance(data, str):
        return parse_spec(data, source, base_dir, context=context, default_namespace=default_namespace)
    return _from_loaded(Loaded(data, {}), source, base_dir, context, default_namespace)


def _from_loaded(loaded: Loaded, source: str, base_dir: str, context: RunContext,
                 default_namespace: DefaultNamespace) -> LoadedSpec:
    from runner.spec import resolve

    if loaded.data is None:
        loaded.data = {}
    if not isinstance(loaded.data, dict):
        raise SpecError(source, [Problem(loaded.line_of(()), (), "a spec is a mapping (repositories, "
                                                                  "releases, ...), not a "
                                                                  f"{_kind(loaded.data)}")])
    problems = substitute_variables(loaded, context)
    model, more = validate(loaded)
    problems += more
    if model is None:
        raise SpecError(source, problems)
    environment = model.environments.get(context.environment)
    eks = environment.eks if environment is not None else None
    if callable(default_namespace):
        default_namespace = default_namespace(eks)
    releases, more = resolve.resolve(model, loaded, base_dir, context.environment, default_namespace)
    problems += more
    if problems:
        raise SpecError(source, problems)
    return LoadedSpec(source, base_dir, releases, ignored_keys(model, loaded, source), model, eks)


def validate(loaded: Loaded) -> tuple[Any, list[Problem]]:
    """(the Spec model or None, problems); string fields given a number take its text."""
    from pydantic import ValidationError

    from runner.spec.models import REFUSED, Spec

    for _ in range(_MAX_COERCIONS):
        try:
            return Spec.model_validate(loaded.data), []
        except ValidationError as err:
            if not _coerce_strings(err, loaded):
                return None, validation_problems(err, loaded, REFUSED, vocabulary())
    return None, [Problem(0, (), "the spec could not be validated")]


def _coerce_strings(err: Any, loaded: Loaded) -> bool:
    """Replace scalars read as numbers/booleans by their text where a string was wanted."""
    from runner.spec.errors import data_path

    changed = False
    for item in err.errors(include_url=False):
        if item["type"] != "string_type":
            continue
        path = data_path(loaded.data, tuple(item["loc"]), item["type"])
        text = loaded.raw.get(path)
        if text is not None and _set(loaded.data, path, text):
            del loaded.raw[path]
            changed = True
    return changed


def _set(data: Any, path: Path, value: Any) -> bool:
    if not path:
        return False
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value
    return True


def substitute_variables(loaded: Loaded, context: RunContext) -> list[Problem]:
    """`${...}` in every string value (keys untouched; preview blocks are substituted when a
    preview deploys, with its own variables)."""
    problems: list[Problem] = []

    def walk(value: Any, path: Path) -> Any:
        if isinstance(value, dict):
            for key in list(value):
                if key == "preview" and _in_release(path):
                    continue
                value[key] = walk(value[key], (*path, key))
            return value
        if isinstance(value, list):
            return [walk(item, (*path, i)) for i, item in enumerate(value)]
        if isinstance(value, str):
            try:
                return context.substitute(value)
            except VariableError as err:
                problems.append(Problem(loaded.line_of(path), path, str(err)))
        return value

    walk(loaded.data, ())
    return problems


def _in_release(path: Path) -> bool:
    """A release mapping: releases[i], or environments.E.releases.NAME."""
    return (len(path) == 2 and path[0] == "releases") or (
        len(path) == 4 and path[0] == "environments" and path[2] == "releases")


def ignored_keys(model: Any, loaded: Loaded, source: str) -> list[str]:
    """A warning per helmfile key the spec sets that deploy-runner ignores."""
    from pydantic import BaseModel

    from runner.spec.errors import format_path

    found: list[str] = []

    def walk(node: Any, path: Path) -> None:
        if isinstance(node, BaseModel):
            fields = type(node).model_fields
            for name in sorted(node.model_fields_set, key=lambda n: loaded.line_of((*path, _alias(fields, n)))):
                info = fields[name]
                key = _alias(fields, name)
                if (info.json_schema_extra or {}).get("deprecated"):
                    where = loaded.line_of((*path, key))
                    prefix = f"{source}:{where}" if where else source
                    found.append(f"{prefix}: {format_path((*path, key))}: helmfile's {key} is "
                                 "ignored by deploy-runner")
                else:
                    walk(getattr(node, name), (*path, key))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, (*path, i))
        elif isinstance(node, dict):
            for key, item in node.items():
                walk(item, (*path, key))

    walk(model, ())
    return found


def _alias(fields: dict[str, Any], name: str) -> str:
    from pydantic.alias_generators import to_camel

    return fields[name].alias or to_camel(name)


def vocabulary() -> list[str]:
    """Every key a spec may use (for `did you mean`)."""
    from pydantic import BaseModel

    from runner.spec import models

    words: set[str] = set()
    for value in vars(models).values():
        if isinstance(value, type) and issubclass(value, BaseModel) and value is not BaseModel:
            words.update(_alias(value.model_fields, n) for n in value.model_fields)
    return sorted(words)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a spec (draft 2020-12), for editors and validators."""
    from runner.spec.models import Spec

    schema = Spec.model_json_schema(by_alias=True)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema",
            **schema, "title": "deploy-runner spec"}


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "list"
    if isinstance(value, str):
        return "string"
    return type(value).__name__
