"""`--post-renderer` as Helm 4.1.4 takes it: the name of a `postrenderer/v1` plugin.

Helm 4 no longer runs an executable path: the flag's value names a plugin
found under $HELM_PLUGINS (default $HELM_DATA_HOME, $XDG_DATA_HOME/helm or
~/.local/share/helm, then `plugins`), each `<dir>/*/plugin.yaml`. The lookup
happens while flags are parsed, so an unknown name fails before anything
renders, with pflag's `invalid argument "NAME" for "--post-renderer" flag:
plugin: {Name:NAME Type:postrenderer/v1} not found`.

Running a found plugin is not supported yet: Helm merges every rendered file
into one annotated stream (kyaml re-serialises each document) and splits the
plugin's output back; deploy-runner says so instead of rendering differently.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

PLUGIN_TYPE = "postrenderer/v1"


def plugin_dirs() -> list[Path]:
    """settings.PluginsDirectory, split as filepath.SplitList."""
    from pathlib import Path  # only when --post-renderer is given

    value = os.environ.get("HELM_PLUGINS")
    if value is None or value == "":
        from runner.chart.sources.paths import _base

        return [_base("HELM_DATA_HOME", "XDG_DATA_HOME", ".local/share") / "plugins"]
    return [Path(part) for part in value.split(os.pathsep) if part]


def find_plugin(name: str, dirs: Sequence[Path]) -> Path | None:
    """plugin.FindPlugin: the first plugin directory whose metadata has this name and type."""
    from runner.encoding import goyaml

    for base in dirs:
        for manifest in sorted(base.glob("*/plugin.yaml")):
            try:
                meta = goyaml.load(manifest.read_bytes())
            except (OSError, ValueError):
                continue
            if isinstance(meta, dict) and meta.get("name") == name and meta.get("type") == PLUGIN_TYPE:
                return manifest.parent
    return None


class PostRendererFlag(argparse.Action):
    """postRendererString.Set: empty is ignored, a second one refused, the plugin looked up."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        name = str(values)
        if name == "":
            return
        if getattr(namespace, self.dest, None):
            _invalid(parser, name, "cannot specify --post-renderer flag more than once")
        if find_plugin(name, plugin_dirs()) is None:
            _invalid(parser, name, f"plugin: {{Name:{name} Type:{PLUGIN_TYPE}}} not found")
        setattr(namespace, self.dest, name)


def _invalid(parser: argparse.ArgumentParser, value: str, reason: str) -> None:
    parser.error(f'invalid argument "{value}" for "--post-renderer" flag: {reason}')


def add_post_renderer_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--post-renderer", action=PostRendererFlag, default="",
                        help="the name of a postrenderer type plugin to be used for post rendering")
    parser.add_argument("--post-renderer-args", action="append", default=[],
                        help="an argument to the post-renderer (can specify multiple)")


def unsupported(name: str) -> str:
    return (f'post-renderer plugin "{name}": running post-renderer plugins is not supported '
            "by deploy-runner yet")
