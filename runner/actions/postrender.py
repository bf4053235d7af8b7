"""`--post-renderer NAME` and `--post-renderer-args ARG` as Helm 4.1.4's install, upgrade and template take them.

The value names a `postrenderer/v1` plugin (runner.postrender). pflag looks it
up while flags are parsed, so an unknown name fails before anything renders:
`invalid argument "NAME" for "--post-renderer" flag: plugin: {Name:NAME
Type:postrenderer/v1} not found`. An empty value is ignored; a second
non-empty one is refused.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:  # imported when a flag is given: `template` without one stays lean
    from typing import Any

    from runner.postrender import PostRenderer


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
        if getattr(namespace, self.dest, None) is not None:
            _invalid(parser, name, "cannot specify --post-renderer flag more than once")
        from runner.postrender import find_post_renderer

        try:
            setattr(namespace, self.dest, find_post_renderer(name))
        except RunnerError as err:
            _invalid(parser, name, str(err))


class PostRendererArgsFlag(argparse.Action):
    """postRendererArgsSlice.Set: appended; once a plugin is named, it is looked up again."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, [*getattr(namespace, self.dest, []), str(values)])
        plugin = getattr(namespace, "post_renderer", None)
        if plugin is not None:
            from runner.postrender import find_post_renderer

            try:
                find_post_renderer(plugin.name)
            except RunnerError as err:
                parser.error(f'invalid argument "{values}" for "--post-renderer-args" flag: {err}')


def _invalid(parser: argparse.ArgumentParser, value: str, reason: str) -> None:
    parser.error(f'invalid argument "{value}" for "--post-renderer" flag: {reason}')


def add_post_renderer_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--post-renderer", action=PostRendererFlag, default=None,
                        help="the name of a postrenderer type plugin to be used for post rendering")
    parser.add_argument("--post-renderer-args", action=PostRendererArgsFlag, default=[],
                        help="an argument to the post-renderer (can specify multiple)")


def post_renderer(args: argparse.Namespace) -> PostRenderer | None:
    """The post-renderer the flags chose, with every --post-renderer-args in order."""
    if args.post_renderer is None:
        return None
    from runner.postrender import PostRenderer

    return PostRenderer(args.post_renderer, tuple(args.post_renderer_args))
