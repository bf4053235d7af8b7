"""Renders a chart as Helm 4.1.4's pkg/engine does.

Every template of the chart and its subcharts is parsed into one template set
(named "gotpl", missingkey=zero) in Helm's order (deepest paths first, then
reverse lexical), so a later `define` of the same name wins as it does in Go.
Each non-partial template is executed with its own chart's scope (.Values,
.Chart, .Files, .Subcharts, plus the shared .Release and .Capabilities), and
`<no value>` is removed from the output. The engine-bound functions include,
tpl, required, fail, lookup and getHostByName close over the set, and errors
are rewritten the way Helm 4.1.4 rewrites text/template's.

The one-call entry point is `render_chart(chart, values, release_name=...,
namespace=...)`; `render(chart, top)` renders prepared top-level values.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence

from runner.deepstack import run_deep
from runner.engine_objects import (
    Capabilities,
    Files,
    default_capabilities,
    release_map,
)
from runner.errors import RunnerError
from runner.golang.gofunc import ANY, FuncError, GoFunc
from runner.golang.strconv import quote
from runner.golang.types import HelmValues

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

TEMPLATE_SET_NAME = "gotpl"
RECURSION_MAX = 1000
_NO_VALUE = "<no value>"


class RenderError(RunnerError):
    """A template failed to parse or execute; the message is Helm's."""


# Plain classes with __slots__, not dataclasses: creating a dataclass costs ~1 ms
# at every start, a large part of a small chart's whole render.


class RenderedFile:
    """The output of one template file, keyed by its path in the chart tree."""

    __slots__ = ("path", "text", "positions")

    def __init__(self, path: str, text: str, positions: Any = None) -> None:
        self.path = path  # e.g. mychart/charts/sub/templates/deploy.yaml
        self.text = text
        # Where each piece of `text` came from (runner.template.positions.SourceMap),
        # when rendered with track_positions=True.
        self.positions = positions


class RenderResult:
    __slots__ = ("files", "warnings")

    def __init__(self, warnings: list[str] | None = None) -> None:
        self.files: dict[str, RenderedFile] = {}
        self.warnings: list[str] = [] if warnings is None else warnings

    def texts(self) -> dict[str, str]:
        """path -> rendered text, the map Helm's engine.Render returns."""
        return {path: f.text for path, f in self.files.items()}

    def positions(self) -> dict[str, Any]:
        """path -> SourceMap of the rendered text (files rendered with track_positions)."""
        return {path: f.positions for path, f in self.files.items() if f.positions is not None}


class ReleaseOptions:
    __slots__ = ("name", "namespace", "revision", "is_install", "is_upgrade")

    def __init__(self, name: str = "release-name", namespace: str = "default", revision: int = 1,
                 is_install: bool = True, is_upgrade: bool = False) -> None:
        self.name = name
        self.namespace = namespace
        self.revision = revision
        self.is_install = is_install
        self.is_upgrade = is_upgrade


class _Renderable:
    __slots__ = ("text", "scope", "base_path")

    def __init__(self, text: str, scope: dict[str, Any], base_path: str) -> None:
        self.text = text
        self.scope = scope  # the chart's top-level map, shared by its templates
        self.base_path = base_path


# ------------------------------------------------------------ top-level values


def to_render_values(
    chart: Any,
    values: Mapping[str, Any],
    options: ReleaseOptions,
    caps: Capabilities | None = None,
) -> dict[str, Any]:
    """ToRenderValues: the root map (.Chart, .Capabilities, .Release, .Values); .Values is
    common.Values, as CoalesceValues returns it."""
    return {
        "Chart": chart.chart_map(),
        "Capabilities": caps or default_capabilities(),
        "Release": release_map(options.name, options.namespace, options.revision,
                               options.is_install, options.is_upgrade),
        "Values": values if type(values) is HelmValues else HelmValues(values),
    }


def _chart_scopes(chart: Any, top: Mapping[str, Any], out: dict[str, _Renderable]) -> dict[str, Any]:
    """recAllTpls: each chart's scope (a common.Values, as is its .Values), templates keyed
    by full path."""
    subcharts: dict[str, Any] = {}
    scope = HelmValues({
        "Chart": chart.chart_map(),
        "Files": Files({f.name: f.data for f in chart.files}),
        "Release": top["Release"],
        "Capabilities": top["Capabilities"],
        "Values": HelmValues(),
        "Subcharts": subcharts,
        # HIP-0027: filled by runner.release.history for live installs/upgrades; empty offline.
        "DeployedChart": top.get("DeployedChart"),
        "DeployedCharts": top.get("DeployedCharts", []),
    })
    if chart.is_root():
        scope["Values"] = top["Values"]
    else:
        scope["Values"] = _subchart_table(top["Values"], chart.name(), scope["Values"])
    for child in chart.dependencies:
        subcharts[child.name()] = _chart_scopes(child, scope, out)
    prefix = chart.chart_full_path()
    library = chart.is_library()
    for tpl in chart.templates:
        if library and not tpl.name.rsplit("/", 1)[-1].startswith("_"):
            continue
        out[_path_join(prefix, tpl.name)] = _Renderable(
            tpl.data.decode("utf-8", "surrogateescape") if isinstance(tpl.data, bytes) else tpl.data,
            scope,
            _path_join(prefix, "templates"),
        )
    return scope


def _subchart_table(parent: Any, name: str, empty: HelmValues) -> HelmValues:
    """Values.Table(name): the parent's map for the subchart, as common.Values. Go retypes
    the one map (a plain map to the parent, dig works on it there); here the subchart
    gets a copy whose writes reach the parent's map, where the parent's templates (which
    render later) see them, as in Helm."""
    table = parent.get(name) if isinstance(parent, dict) else None
    if not isinstance(table, dict):
        return empty
    return HelmValues.mirrored(table)


def _path_join(prefix: str, name: str) -> str:
    """path.Join(prefix, name): a plain join, cleaned when a chart named "/" doubles a slash."""
    joined = f"{prefix}/{name}"
    if "//" not in joined:
        return joined
    from runner.funcs.paths import clean

    return clean(joined)


def sort_templates(names: Sequence[str]) -> list[str]:
    """sort.Reverse(byPathLen): most slashes first, then reverse lexical."""
    return sorted(names, key=lambda n: (n.count("/"), n), reverse=True)


# ------------------------------------------------------------ the template set
# All calls into runner.template go through these functions.


def _new_set(funcs: Mapping[str, GoFunc], strict: bool = False) -> Any:
    from runner.template import Template

    return Template(TEMPLATE_SET_NAME, funcs=funcs, missingkey="error" if strict else "zero")


def _clone_set(parent: Any, funcs: Mapping[str, GoFunc], strict: bool) -> Any:
    """Template.Clone: the same trees in a new set (defines added to it stay there)."""
    clone = _new_set(funcs, strict)
    for name in parent.defined_templates():
        if name != TEMPLATE_SET_NAME:  # the tpl text replaces it, as in Go's clone
            clone.add_tree(name, parent.lookup(name))
    return clone


def _add_funcs(tset: Any, funcs: Mapping[str, GoFunc]) -> None:
    tset.add_funcs(funcs)


def _parse(tset: Any, name: str, text: str) -> None:
    tset.parse(name, text)


def _has(tset: Any, name: str) -> bool:
    return tset.lookup(name) is not None


def _open_pack(tset: Any, names: Iterable[str]) -> None:
    """The cross-run cache's entries of a render of templates `names`, one file read
    (runner.template.cache.Pack); the set records what it parses in it."""
    from runner.template import open_pack

    tset.pack = open_pack(names)


def _store_compiled(tset: Any) -> None:
    """The cache entries of the texts parsed, with the code of what ran, into the render's
    pack: once a render is done, failed or not."""
    from runner.template import store_pending

    if tset.pack is not None:
        store_pending(tset.pack)


def _execute(tset: Any, name: str, data: Any) -> str:
    return tset.execute(name, data)


def _execute_tracked(tset: Any, name: str, data: Any) -> tuple[str, Any]:
    """The output and its SourceMap; include/tpl inside are tracked as nested executions."""
    return tset.execute_with_positions(name, data)


# ------------------------------------------------------------ the engine


class Engine:
    """One render: a template set plus the engine-bound functions."""

    def __init__(self, *, strict: bool = False, lint_mode: bool = False,
                 # Helm's lookup against a cluster (Cluster.lookup, built by the actions);
                 # None where Helm has no cluster. Refusals raise RunnerError.
                 lookup: Callable[[str, str, str, str], dict[str, Any]] | None = None,
                 track_positions: bool = False) -> None:
        self.strict = strict
        self.track_positions = track_positions
        self.lint_mode = lint_mode
        self._lookup = lookup
        self._included: dict[str, int] = {}
        self.warnings: list[str] = []

    def render(self, chart: Any, top: Mapping[str, Any]) -> RenderResult:
        """Render every non-partial template of `chart` and its subcharts."""
        renderables: dict[str, _Renderable] = {}
        _chart_scopes(chart, top, renderables)
        return run_deep(lambda: self._render_all(renderables))

    def _render_all(self, renderables: dict[str, _Renderable]) -> RenderResult:
        self._funcs = self._function_map()
        tset = _new_set(self._funcs, self.strict)
        self._bind(tset)
        _open_pack(tset, renderables)
        try:
            return self._parse_and_execute(tset, renderables)
        finally:
            _store_compiled(tset)

    def _parse_and_execute(self, tset: Any, renderables: dict[str, _Renderable]) -> RenderResult:
        order = sort_templates(list(renderables))
        for name in order:
            try:
                _parse(tset, name, renderables[name].text)
            except RecursionError:
                raise RenderError(f"parse error in ({name}): template nested too deeply to parse") from None
            except RunnerError as err:
                from runner.engine_errors import cleanup_parse_error  # error paths only

                raise RenderError(cleanup_parse_error(name, str(err))) from err
        result = RenderResult(warnings=self.warnings)
        for name in order:
            if name.rsplit("/", 1)[-1].startswith("_"):
                continue
            result.files[name] = self._render_one(tset, name, renderables[name])
        return result

    def _render_one(self, tset: Any, name: str, item: _Renderable) -> RenderedFile:
        # Helm mutates the chart's shared scope: .Template is the last one set.
        item.scope["Template"] = HelmValues({"Name": name, "BasePath": item.base_path})
        positions = None
        try:
            if self.track_positions:
                text, positions = _execute_tracked(tset, name, item.scope)
                positions = positions.without(_NO_VALUE)
            else:
                text = _execute(tset, name, item.scope)
        except RecursionError:
            # Go's stacks grow to 1 GB; ours are sized in runner.deepstack.
            raise RenderError(
                f"rendering template failed: {name}: nested too deeply to render") from None
        except RunnerError as err:
            from runner.engine_errors import reformat_exec_error  # error paths only

            raise RenderError(reformat_exec_error(name, str(err), _is_exec_error(err))) from err
        return RenderedFile(name, text.replace(_NO_VALUE, ""), positions)

    # -- functions bound to a template set

    def _function_map(self) -> dict[str, GoFunc]:
        from runner.funcs import function_map

        funcs = function_map()
        funcs.update({
            "required": GoFunc("required", self._required, ("string", ANY), returns=ANY, fallible=True),
            "fail": GoFunc("fail", self._fail, ("string",), returns="string", fallible=True),
            "lookup": GoFunc("lookup", self._lookup_fn, ("string",) * 4,
                             returns="map[string]interface {}", fallible=True),
            "getHostByName": GoFunc("getHostByName", lambda _name: "", ("string",), returns="string"),
        })
        return funcs

    def _bind(self, tset: Any) -> None:
        """Add include and tpl closing over `tset` (Helm re-binds them per tpl clone)."""
        bound = {
            "include": GoFunc("include", self._include_fn(tset), ("string", ANY),
                              returns="string", fallible=True),
            "tpl": GoFunc("tpl", self._tpl_fn(tset), ("string", ANY),
                          returns="string", fallible=True),
        }
        _add_funcs(tset, bound)
        from runner.template import BUILTINS

        self._all_funcs = {**BUILTINS, **self._funcs, **bound}

    def _include_fn(self, tset: Any) -> Callable[[str, Any], str]:
        included = self._included

        def include(name: str, data: Any) -> str:
            count = included.get(name)
            if count is not None and count > RECURSION_MAX:
                raise FuncError(f"rendering template has a nested reference name: {name}: "
                                "unable to execute template")
            included[name] = 1 if count is None else count + 1
            try:
                if not _has(tset, name):
                    raise FuncError(f"template: no template {quote(name)} associated "
                                    f"with template {quote(TEMPLATE_SET_NAME)}")
                return _execute(tset, name, data)
            except RunnerError as err:
                raise FuncError(str(err)) from err
            finally:
                included[name] -= 1

        return include

    def _tpl_fn(self, parent: Any) -> Callable[[str, Any], str]:
        def tpl(text: str, data: Any) -> str:
            if "{{" not in text:  # plain text parses and prints as itself
                return text.replace(_NO_VALUE, "")
            try:
                tset = self._tpl_set(parent, text)
            except RunnerError as err:
                raise FuncError(f"cannot parse template {quote(text)}: {err}") from err
            try:
                out = _execute(tset, TEMPLATE_SET_NAME, data)
            except RunnerError as err:
                raise FuncError(f"error during tpl function execution for {quote(text)}: {err}") from err
            return out.replace(_NO_VALUE, "")

        return tpl

    def _tpl_set(self, parent: Any, text: str) -> Any:
        """The set a tpl text runs in, with the text as template "gotpl".

        Go clones the set for every call; a text without defines cannot change
        the clone beyond "gotpl", so the parent set serves (fast path).
        """
        from runner.template import parse_cached

        trees = parse_cached(TEMPLATE_SET_NAME, text, self._all_funcs, remember=False).trees
        if len(trees) == 1:
            parent.add_tree(TEMPLATE_SET_NAME, trees[TEMPLATE_SET_NAME])
            return parent
        tset = _clone_set(parent, self._funcs, self.strict)
        self._bind(tset)
        _parse(tset, TEMPLATE_SET_NAME, text)
        return tset

    def _required(self, warn: str, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value == ""):
            if self.lint_mode:
                self.warnings.append(f"[INFO] Missing required value: {warn}")
                return ""
            raise FuncError(f"HELM_ERR_START{warn}HELM_ERR_END")
        return value

    def _fail(self, msg: str) -> str:
        if self.lint_mode:
            self.warnings.append(f"[INFO] Fail: {msg}")
            return ""
        raise FuncError(f"HELM_ERR_START{msg}HELM_ERR_END")

    def _lookup_fn(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any]:
        if self._lookup is None or self.lint_mode:
            return {}  # no cluster (template, --dry-run=client, lint): Helm's empty map
        try:
            return self._lookup(api_version, kind, namespace, name)
        except RunnerError as err:  # the cluster refused: `error calling lookup: <why>`
            raise FuncError(str(err)) from err


def _is_exec_error(err: BaseException) -> bool:
    try:
        from runner.template.errors import ExecError
    except ImportError:  # pragma: no cover - the template package is always there
        return True
    return isinstance(err, ExecError)




# ------------------------------------------------------------ one-call API


def render(chart: Any, top: Mapping[str, Any], **engine_options: Any) -> RenderResult:
    """Render a loaded chart with prepared top-level values (to_render_values)."""
    return Engine(**engine_options).render(chart, top)


def render_chart(
    chart: Any,
    values: Mapping[str, Any] | None = None,
    *,
    release_name: str = "release-name",
    namespace: str = "default",
    is_upgrade: bool = False,
    kube_version: str | None = None,
    api_versions: Sequence[str] = (),
    track_positions: bool = False,
) -> RenderResult:
    """Load (if a path), coalesce values, and render: what `helm template` renders.

    `values` are user-supplied values (as from -f/--set), coalesced with the
    chart's defaults by runner.chart before rendering. With `track_positions`
    every RenderedFile carries a SourceMap (same text; see docs/engine.md).
    """
    if isinstance(chart, (str, os.PathLike)):
        chart = load_chart(os.fspath(chart))
    caps = default_capabilities(kube_version, api_versions)
    coalesced, warnings = prepare_values(chart, dict(values or {}))
    options = ReleaseOptions(release_name, namespace, 1, not is_upgrade, is_upgrade)
    result = render(chart, to_render_values(chart, coalesced, options, caps), track_positions=track_positions)
    result.warnings[:0] = warnings
    return result


# ------------------------------------------------------------ the chart layer
# runner.chart is owned elsewhere; these adapters are the only calls into it.


def load_chart(path: str) -> Any:
    from runner.chart.loader import load_chart as load

    return load(path)


def prepare_values(chart: Any, user_values: dict[str, Any], *,
                   skip_schema_validation: bool = False) -> tuple[dict[str, Any], list[str]]:
    """Install.Run between loading and rendering (runner.chart.prepare): installable,
    deprecated warning, dependencies, coalescing, schema. Returns (values, stderr lines)."""
    from runner.chart.prepare import prepare_render_values

    prepared = prepare_render_values(chart, user_values, skip_schema_validation=skip_schema_validation)
    return prepared.values, prepared.warning_lines()


def check_kube_version(chart: Any, kube_version: str) -> None:
    """The chart's kubeVersion constraint against the target (runner.chart.prepare)."""
    from runner.chart.prepare import check_kube_version as check

    check(chart, kube_version)
