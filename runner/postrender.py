"""Helm 4.1.4's post-rendering: `postrenderer/v1` plugins and the annotated manifest stream.

A post-renderer is a plugin found under $HELM_PLUGINS (pkg/postrenderer,
internal/plugin): its `plugin.yaml` (apiVersion v1, type postrenderer/v1,
runtime subprocess) names a command per platform. Helm merges the rendered
files (NOTES.txt already taken out, partials and empty files skipped) into
one stream, each document annotated with its file name; the command reads
that on stdin and its stdout replaces it; the stream is split back into
files by that annotation (documents without it become
`generated-by-postrender-N.yaml`) before hooks and manifests are sorted.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.errors import RunnerError
from runner.plugins import Plugin, find_plugin

PLUGIN_TYPE = "postrenderer/v1"
FILENAME_ANNOTATION = "postrenderer.helm.sh/postrender-filename"
_GOARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64",
           "i386": "386", "i686": "386", "armv7l": "arm", "ppc64le": "ppc64le", "s390x": "s390x"}


@dataclass(frozen=True)
class PostRenderer:
    """NewPostRendererPlugin: the plugin and the --post-renderer-args."""

    plugin: Plugin
    args: tuple[str, ...] = ()

    def run(self, manifests: str) -> str:
        """postRendererPlugin.Run: the plugin's stdout, refused when it is blank."""
        name = self.plugin.name
        try:
            output = _invoke(self.plugin, list(self.args), manifests)
        except RunnerError as err:
            raise RunnerError(f'failed to invoke post-renderer plugin "{name}": {err}') from None
        if not output.strip(" \t\n\r\v\f"):
            raise RunnerError(f'post-renderer "{name}" produced empty output')
        return output


def find_post_renderer(name: str, on_warning: Callable[[str], None]) -> Plugin:
    """NewPostRendererPlugin's lookup: plugin.FindPlugin for {Name: name, Type: postrenderer/v1}
    (a plugin.yaml that does not load: Helm's warning line to `on_warning`)."""
    return find_plugin(name, PLUGIN_TYPE, on_warning=on_warning)


# ------------------------------------------------------------ running one


def _invoke(plugin: Plugin, extra_args: list[str], stdin: str) -> str:
    """SubprocessPluginRuntime.runPostrenderer: the platform command, Helm's environment."""
    if plugin.runtime != "subprocess":
        raise RunnerError(f"the {plugin.runtime} plugin runtime is not supported by deploy-runner")
    env = dict(os.environ)
    env["HELM_PLUGIN_NAME"] = plugin.name
    env["HELM_PLUGIN_DIR"] = str(plugin.directory)
    main, args = _prepare_command(plugin.platform_command, extra_args, env)
    import subprocess

    try:
        done = subprocess.run([main, *args], input=stdin.encode("utf-8", "surrogateescape"),
                              capture_output=True, env=env, check=False)
    except FileNotFoundError:
        if "/" not in main:
            raise RunnerError(f'exec: "{main}": executable file not found in $PATH') from None
        raise RunnerError(f"fork/exec {main}: no such file or directory") from None
    except PermissionError:
        raise RunnerError(f"fork/exec {main}: permission denied") from None
    except OSError as err:
        raise RunnerError(f"fork/exec {main}: {(err.strerror or str(err)).lower()}") from None
    if done.returncode != 0:
        raise RunnerError(f'plugin "{plugin.name}" exited with error')
    return done.stdout.decode("utf-8", "surrogateescape")


def _prepare_command(commands: list[dict[str, Any]], extra_args: list[str],
                     env: dict[str, str]) -> tuple[str, list[str]]:
    """PrepareCommands: the platform's command split on spaces, $VARs expanded, extra args last."""
    parts, args = _platform_command(commands)
    if not parts or parts[0] == "":
        raise RunnerError("failed to prepare plugin command: no plugin command is applicable")
    expand = _expander(env)
    return expand(parts[0]), [expand(p) for p in parts[1:]] + [expand(a or "") for a in args] + extra_args


def _platform_command(commands: list[dict[str, Any]]) -> tuple[list[str], list[Any]]:
    """getPlatformCommand: exact os+arch, else os alone, else neither; the first of each wins."""
    import platform

    goos, goarch = platform.system().lower(), _GOARCH.get(platform.machine().lower(), "")
    chosen: tuple[list[str], list[Any]] = ([], [])
    found = found_os = False
    for command in commands:
        command = command or {}
        system, arch = (command.get("os") or "").lower(), (command.get("arch") or "").lower()
        split = (str(command.get("command") or "").split(" "), list(command.get("args") or []))
        if system == goos and arch == goarch:
            return split
        if (system and system != goos) or arch:
            continue
        if not found_os and system:
            chosen, found, found_os = split, True, True
        elif not found:
            chosen, found = split, True
    return chosen


def _expander(env: dict[str, str]) -> Any:
    def expand(text: str) -> str:
        return go_expand(text, lambda name: env.get(name, ""))
    return expand


def go_expand(text: str, mapping: Any) -> str:
    """os.Expand: $NAME and ${NAME} replaced, shell special one-character names too."""
    out: list[str] = []
    start = j = 0
    while j < len(text):
        if text[j] == "$" and j + 1 < len(text):
            out.append(text[start:j])
            name, width = _shell_name(text[j + 1:])
            if name:
                out.append(mapping(name))
            elif width == 0:
                out.append("$")  # no name follows: the dollar stays
            j += width
            start = j + 1
        j += 1
    return "".join(out) + text[start:]


_SPECIAL = "*#$@!?-0123456789"


def _shell_name(s: str) -> tuple[str, int]:
    if s[0] == "{":
        if len(s) > 2 and s[1] in _SPECIAL and s[2] == "}":
            return s[1], 3
        close = s.find("}", 1)
        if close == 1:
            return "", 2  # "${}" is eaten
        return (s[1:close], close + 1) if close > 0 else ("", 1)
    if s[0] in _SPECIAL:
        return s[0], 1
    end = 0
    while end < len(s) and (s[end] == "_" or s[end].isascii() and s[end].isalnum()):
        end += 1
    return s[:end], end


# ------------------------------------------------------------ the annotated stream


def post_render(files: dict[str, str], renderer: PostRenderer) -> dict[str, str]:
    """renderResources' post-render step: merge, run the plugin, split back into files."""
    merged = merge_files(files)
    try:
        output = renderer.run(merged)
    except RunnerError as err:
        raise RunnerError(f"error while running post render on files: {err}") from None
    return split_files(output)


def merge_files(files: dict[str, str]) -> str:
    """annotateAndMerge: documents of every file in name order, each annotated with its file."""
    from runner.encoding import kyaml
    from runner.manifest import go_trim_space

    documents: list[kyaml.Node] = []
    for name in sorted(files):
        content = files[name]
        if posixpath.basename(name).startswith("_") or not go_trim_space(content):
            continue
        try:
            parsed = kyaml.parse_all(content)
            for document in parsed:
                kyaml.set_annotation(document, FILENAME_ANNOTATION, name)
        except kyaml.Unsupported as err:
            raise _unsupported(name, err) from None
        except kyaml.KyamlError as err:
            raise RunnerError(f"error merging manifests: parsing {name}: {err}") from None
        documents.extend(parsed)
    return _written(documents, "the rendered manifests")


def split_files(stream: str) -> dict[str, str]:
    """splitAndDeannotate: documents grouped by their file annotation, which is removed."""
    from runner.encoding import kyaml

    try:
        documents = kyaml.parse_all(stream)
    except kyaml.Unsupported as err:
        raise _unsupported("the post-renderer's output", err) from None
    except kyaml.KyamlError as err:
        raise RunnerError(f"error while parsing post rendered output: error parsing YAML: {err}") from None
    by_file: dict[str, list[kyaml.Node]] = {}
    for i, document in enumerate(documents):
        if kyaml.missing_metadata(document):
            raise RunnerError("error while parsing post rendered output: getting metadata: "
                              "missing Resource metadata")
        name = kyaml.pop_annotation(document, FILENAME_ANNOTATION) or f"generated-by-postrender-{i}.yaml"
        by_file.setdefault(name, []).append(document)
    return {name: _written(docs, "the post-renderer's output") for name, docs in by_file.items()}


def _written(documents: list[Any], where: str) -> str:
    from runner.encoding import kyaml

    try:
        return kyaml.string_all(documents)
    except kyaml.Unsupported as err:
        raise _unsupported(where, err) from None


def _unsupported(where: str, err: Exception) -> RunnerError:
    return RunnerError(f"post-rendering {where}: {err} are not supported by deploy-runner yet "
                       "(Helm re-writes such YAML by go-yaml v3 rules not reproduced here)")
