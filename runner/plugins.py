"""Helm 4.1.4's plugin catalogue (internal/plugin): finding and loading plugin.yaml files.

Plugins live in the directories of $HELM_PLUGINS (default
$HELM_DATA_HOME, $XDG_DATA_HOME/helm or ~/.local/share/helm, then
`plugins`), one `<dir>/*/plugin.yaml` each. A plugin.yaml without
`apiVersion` is a legacy plugin (type cli/v1, or getter/v1 with
downloaders); `apiVersion: v1` is decoded strictly (unknown fields refused).
A plugin.yaml that does not load is skipped with Helm's slog warning (told to
the caller's `on_warning`: the CLI prints it); two loadable plugins of one name
in one directory are an error.

deploy-runner loads no CLI plugins at start-up, as Helm with
HELM_NO_PLUGINS=1: only a lookup (`--post-renderer`) reads the catalogue.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from runner.errors import RunnerError

_VALID_NAME = re.compile(r"[A-Za-z0-9_-]+")
_STRICT_SEMVER = re.compile(
    r"(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*)?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?")
_V1_STRINGS = ("apiVersion", "name", "type", "runtime", "version", "sourceURL")
_V1_MAPS = ("config", "runtimeConfig")
_V1_TYPES = ("cli/v1", "getter/v1", "postrenderer/v1")
_RUNTIMES = ("subprocess", "extism/v1")
_MAP_TYPE = "map[string]interface {}"


class PluginLoadError(ValueError):
    """Why LoadDir refused a plugin.yaml, in Helm's words."""


@dataclass(frozen=True)
class Plugin:
    """A loaded plugin: what FindPlugin matches on and what the subprocess runtime runs."""

    name: str
    type: str
    runtime: str
    directory: Path
    platform_command: list[dict[str, Any]] = field(default_factory=list)


def plugin_dirs() -> list[Path]:
    """settings.PluginsDirectory, split as filepath.SplitList."""
    value = os.environ.get("HELM_PLUGINS")
    if not value:
        from runner.chart.sources.paths import _base

        return [_base("HELM_DATA_HOME", "XDG_DATA_HOME", ".local/share") / "plugins"]
    return [Path(part) for part in value.split(os.pathsep) if part]


def find_plugin(name: str, kind: str, dirs: Sequence[Path] | None = None, *,
                on_warning: Callable[[str], None]) -> Plugin:
    """plugin.FindPlugin: the first plugin of this name and type, directory by directory;
    Helm's warning line for each plugin.yaml that does not load goes to `on_warning`."""
    for base in plugin_dirs() if dirs is None else dirs:
        for plugin in _load_all(base, on_warning):
            if plugin.name == name and plugin.type == kind:
                return plugin
    raise RunnerError(f"plugin: {{Name:{name} Type:{kind}}} not found")


def _load_all(base: Path, on_warning: Callable[[str], None]) -> list[Plugin]:
    """LoadAllDir: every plugin.yaml that loads (others logged), then the duplicate check."""
    from runner.golang.slog import text_line

    plugins: list[Plugin] = []
    for manifest in sorted(base.glob("*/plugin.yaml")):
        try:
            plugins.append(load_plugin(manifest.parent))
        except PluginLoadError as err:
            on_warning(text_line("WARN", "failed to load plugin (ignoring)", {
                "plugin_yaml": str(manifest), "error": f'failed to load plugin "{manifest.parent}": {err}'}))
    seen: dict[str, Path] = {}
    for plugin in plugins:
        if plugin.name in seen:
            raise RunnerError(f'two plugins claim the name "{plugin.name}" at '
                              f'"{seen[plugin.name]}" and "{plugin.directory}"')
        seen[plugin.name] = plugin.directory
    return plugins


def load_plugin(directory: Path) -> Plugin:
    """LoadDir: plugin.yaml read as legacy (no apiVersion) or v1."""
    try:
        text = (directory / "plugin.yaml").read_bytes().decode("utf-8", "surrogateescape")
    except OSError as err:
        raise PluginLoadError(f"{err.strerror}") from None
    root = _first_document(text)
    api_version = _peek_api_version(root)
    if api_version == "":
        return _load_legacy(root, directory)
    if api_version != "v1":
        raise PluginLoadError(f'invalid plugin apiVersion: "{api_version}"')
    return _load_v1(root, directory)


# ------------------------------------------------------------ decoding as go-yaml v3 does


def _first_document(text: str) -> Any:
    """yaml.v3 Decoder.Decode's node: the first document (errors as go-yaml's)."""
    import yaml

    from runner.encoding.yamlerrors import error_text

    try:
        return next(yaml.compose_all(text, Loader=yaml.CSafeLoader), None)
    except yaml.YAMLError as exc:
        raise PluginLoadError(f"failed to peek plugin.yaml API version: {error_text(exc, text)}") from None


def _peek_api_version(root: Any) -> str:
    if root is None:
        raise PluginLoadError("failed to peek plugin.yaml API version: EOF")
    if _kind(root) != "map":
        raise PluginLoadError("failed to peek plugin.yaml API version: yaml: unmarshal errors:\n  "
                              f"line {root.start_mark.line + 1}: cannot unmarshal {_describe(root)} "
                              "into plugin.apiVersion")
    for key, value in root.value:
        if key.value == "apiVersion":
            errors: list[str] = []
            version = _string(value, errors)
            if errors:
                raise PluginLoadError("failed to peek plugin.yaml API version: yaml: unmarshal errors:\n  "
                                      + "\n  ".join(errors))
            return version
    return ""


def _kind(node: Any) -> str:
    return {"MappingNode": "map", "SequenceNode": "seq"}.get(type(node).__name__, "scalar")


def _describe(node: Any) -> str:
    """go-yaml's `!!int `3`` (scalars) or `!!seq` / `!!map` in unmarshal errors."""
    kind = _kind(node)
    if kind != "scalar":
        return f"!!{kind}"
    return f"!!{_scalar_tag(node)} `{node.value}`"


def _scalar_tag(node: Any) -> str:
    """go-yaml v3's resolve for a plain scalar (YAML 1.2 core schema plus its extras)."""
    if node.style:
        return "str"
    text = node.value
    if text in ("", "~", "null", "Null", "NULL"):
        return "null"
    if text in ("true", "True", "TRUE", "false", "False", "FALSE"):
        return "bool"
    if re.fullmatch(r"[-+]?(?:0|[1-9][0-9_]*|0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+)", text):
        return "int"
    if re.fullmatch(r"[-+]?(?:\.[0-9]+|[0-9][0-9_]*(?:\.[0-9_]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|"
                    r"\.(?:nan|NaN|NAN)", text):
        return "float"
    return "str"


def _string(node: Any, errors: list[str]) -> str:
    """A string field: any scalar's text (null is ""); collections are unmarshal errors."""
    if _kind(node) != "scalar":
        errors.append(f"line {node.start_mark.line + 1}: cannot unmarshal {_describe(node)} into string")
        return ""
    return "" if _scalar_tag(node) == "null" else str(node.value)


def _plain(node: Any) -> Any:
    """A node as Python data with every scalar as its text (Go string fields take the text)."""
    kind = _kind(node)
    if kind == "map":
        return {str(k.value): _plain(v) for k, v in node.value}
    if kind == "seq":
        return [_plain(item) for item in node.value]
    return None if _scalar_tag(node) == "null" else str(node.value)


def _unmarshal_errors(errors: list[str]) -> None:
    if errors:
        raise PluginLoadError("yaml: unmarshal errors:\n  " + "\n  ".join(errors))


# ------------------------------------------------------------ metadata


def _load_v1(root: Any, directory: Path) -> Plugin:
    """MetadataV1 (KnownFields), its Validate, then the conversion by type and runtime."""
    errors: list[str] = []
    fields: dict[str, Any] = {}
    for key, value in root.value:
        name = str(key.value)
        if name in _V1_STRINGS:
            fields[name] = _string(value, errors)
        elif name in _V1_MAPS:
            if _kind(value) == "map" or (_kind(value) == "scalar" and _scalar_tag(value) == "null"):
                fields[name] = _plain(value) or {}
            else:
                errors.append(f"line {value.start_mark.line + 1}: cannot unmarshal {_describe(value)} "
                              f"into {_MAP_TYPE}")
        else:
            errors.append(f"line {key.start_mark.line + 1}: field {name} not found in type plugin.MetadataV1")
    _unmarshal_errors(errors)
    name, version = fields.get("name", ""), fields.get("version", "")
    kind, runtime = fields.get("type", ""), fields.get("runtime", "")
    if not _VALID_NAME.fullmatch(name):
        raise PluginLoadError("invalid plugin `name`")
    if version == "":
        raise PluginLoadError("plugin `version` is required")
    if not _STRICT_SEMVER.fullmatch(version):
        raise PluginLoadError(f'invalid plugin `version` "{version}": must be valid semver')
    if kind == "":
        raise PluginLoadError("`type` missing")
    if runtime == "":
        raise PluginLoadError("`runtime` missing")
    converting = "failed to convert MetadataV1 to Metadata: "
    if kind not in _V1_TYPES:
        raise PluginLoadError(f'{converting}unknown plugin type "{kind}"')
    if runtime not in _RUNTIMES:
        raise PluginLoadError(f'{converting}unsupported plugin runtime type: "{runtime}"')
    config = fields.get("config") or {}
    if kind == "getter/v1":
        _check_protocols(config.get("protocols"))
    commands = (fields.get("runtimeConfig") or {}).get("platformCommand") or []
    if not _valid_commands(commands):
        raise PluginLoadError(f"{converting}failed to unmarshal runtimeConfig for {runtime} runtime")
    return Plugin(name, kind, runtime, directory, [c or {} for c in commands])


def _valid_commands(commands: Any) -> bool:
    """[]PlatformCommand: mappings whose os, arch and command are text and args a list."""
    if not isinstance(commands, list):
        return False
    for command in commands:
        if command is None:
            continue
        args = command.get("args") or [] if isinstance(command, dict) else None
        if not isinstance(args, list) or not all(isinstance(a, str | None) for a in args):
            return False
        if any(not isinstance(command.get(k) or "", str) for k in ("os", "arch", "command")):
            return False
    return True


def _check_protocols(protocols: Any) -> None:
    if not isinstance(protocols, list) or not protocols:
        raise PluginLoadError("config validation failed: getter has no protocols")
    for i, protocol in enumerate(protocols):
        if not protocol:
            raise PluginLoadError(f"config validation failed: getter has empty protocol at index {i}")


def _load_legacy(root: Any, directory: Path) -> Plugin:
    """MetadataLegacy (unknown fields allowed) and its Validate: a cli/v1 or getter/v1 plugin."""
    meta = _plain(root) or {}
    name, version = str(meta.get("name") or ""), str(meta.get("version") or "")
    if not _VALID_NAME.fullmatch(name):
        raise PluginLoadError(f'invalid plugin name "{name}": must contain only a-z, A-Z, 0-9, _ and -')
    if version and not _STRICT_SEMVER.fullmatch(version):
        raise PluginLoadError(f'invalid plugin version "{version}": must be valid semver')
    if meta.get("platformCommand") and meta.get("command"):
        raise PluginLoadError("both platformCommand and command are set")
    if meta.get("platformHooks") and meta.get("hooks"):
        raise PluginLoadError("both platformHooks and hooks are set")
    downloaders = meta.get("downloaders") or []
    for i, downloader in enumerate(downloaders if isinstance(downloaders, list) else []):
        downloader = downloader if isinstance(downloader, dict) else {}
        if not downloader.get("command"):
            raise PluginLoadError(f"downloader {i} has empty command")
        protocols = downloader.get("protocols") or []
        if not protocols:
            raise PluginLoadError(f"downloader {i} has no protocols")
        for j, protocol in enumerate(protocols):
            if not protocol:
                raise PluginLoadError(f"downloader {i} has empty protocol at index {j}")
    return Plugin(name, "getter/v1" if downloaders else "cli/v1", "subprocess", directory)
