"""Helm's `lookup` template function over the cluster (Helm 4.1.4's
pkg/engine/lookup_func.go, with client-go's discovery and dynamic client).

`lookup(apiVersion, kind, namespace, name)`:
- the kind's resource and whether it is namespaced come from discovery of its
  group/version (the first resource of that kind; subresources skipped). Helm asks
  discovery at every call; we ask once per client (KubeClient.served_kinds);
- a namespaced kind with a namespace is read there, anything else cluster-wide;
- with a name, GET the object; without, LIST, and the list is returned as
  client-go's UnstructuredList content: its fields, `items` always a list and each
  item's kind/apiVersion filled in from the list's;
- NotFound gives an empty map, so `if not (lookup ...)` works;
- a group/version the server does not serve fails as Helm's does, after its two
  ERROR log lines; a kind the group/version lacks leaves client-go with an empty
  resource, so it asks `/api/<name>` (NotFound: an empty map) or, for a list,
  `/api` itself, whose APIVersions object comes back as the "list";
- any other refusal (forbidden, ...) fails with client-go's text for it.

Numbers are what apimachinery's JSON decoding gives templates: int64 for an
integer that fits, float64 for any other number.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import quote

from runner.golang.types import Int64
from runner.kube.client import KubeClient, KubeError, Response

Log = Callable[[str], None]

_INT64 = range(-(1 << 63), 1 << 63)


class LookupRefused(KubeError):
    """A lookup that failed, in Helm's words (the template shows `error calling lookup: ...`)."""


def lookup(client: KubeClient, api_version: str, kind: str, namespace: str, name: str,
           log: Log | None = None) -> dict[str, Any]:
    """One call of Helm's lookup; `log` gets the ERROR lines Helm's slog prints (slog's text)."""
    path, namespaced = _collection_path(client, api_version, kind, namespace, log)
    _check_segment("namespace", namespace if namespaced else "")
    _check_segment("resource name", name)
    if name:
        reply = client.request("GET", f"{path}/{quote(name, safe='')}")
    else:
        reply = client.request("GET", path)
    if reply.status == 404:  # apierrors.IsNotFound: a NotFound Status, or any 404
        return {}
    if not reply.ok:
        raise LookupRefused(reply.error_text, reply.status)
    content = _go_numbers(reply.body)
    return content if name else _list_content(content)


def _collection_path(client: KubeClient, api_version: str, kind: str, namespace: str,
                     log: Log | None) -> tuple[str, bool]:
    """Where the kind's objects are (namespace included when it applies), and whether it is
    namespaced there; an unknown kind yields client-go's path for an empty
    GroupVersionResource: `/api` (the name appended)."""
    group, version = _parse_group_version(api_version)
    served_as = f"{group}/{version}" if group else version
    gvk = f"{group}/{version}, Kind={kind}"  # schema.GroupVersionKind.String()
    try:
        kinds = _served(client, served_as)
    except KubeError as err:
        if log is not None:
            from runner.golang.slog import text_line

            log(text_line("ERROR", "unable to retrieve resource list",
                          {"GroupVersion": served_as, "error": str(err)}))
            log(text_line("ERROR", "unable to get apiresource",
                          {"groupVersionKind": gvk, "error": str(err)}))
        raise LookupRefused(f"unable to get apiresource from unstructured: {gvk}: {err}",
                           err.status) from err
    mapping = kinds.get(kind)
    if mapping is None:
        return "/api", False
    return mapping.collection_path(namespace), bool(mapping.namespaced and namespace)


def _check_segment(what: str, value: str) -> None:
    """The dynamic client's check of a namespace or name (rest.IsValidPathSegmentName)."""
    if not value:
        return
    if value in (".", ".."):
        problems = [f"may not be '{value}'"]
    else:
        problems = [f"may not contain '{c}'" for c in "/%" if c in value]
    if problems:
        from runner.golang.strconv import quote as go_quote

        raise LookupRefused(f'invalid {what} {go_quote(value)}: [{" ".join(problems)}]')


def _served(client: KubeClient, api_version: str) -> dict[str, Any]:
    """discovery's ServerResourcesForGroupVersion: a group/version not served is an error
    (but core v1, which client-go tolerates as empty)."""
    if not api_version:
        raise KubeError("groupVersion shouldn't be empty")
    try:
        kinds = client.served_kinds(api_version)
    except KubeError as err:
        if not err.status:
            raise  # no reply at all: the connection's own error
        raise KubeError(Response(err.status, err.body).error_text, err.status) from err
    if kinds is None:
        if api_version == "v1":
            return {}
        raise KubeError(Response(404, {}).error_text, 404)
    return kinds


def _parse_group_version(api_version: str) -> tuple[str, str]:
    """schema.FromAPIVersionAndKind's reading: `v1`, `group/version`; anything with more
    slashes names no group/version at all."""
    if api_version.count("/") == 0:
        return "", api_version
    if api_version.count("/") == 1:
        group, _, version = api_version.partition("/")
        return group, version
    return "", ""


def _go_numbers(value: Any) -> Any:
    """The decoded JSON with Go's number types: int64 where an integer fits, else float64."""
    if isinstance(value, dict):
        return {key: _go_numbers(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_go_numbers(item) for item in value]
    if type(value) is int:
        return Int64(value) if value in _INT64 else float(value)
    return value


def _list_content(body: dict[str, Any]) -> dict[str, Any]:
    """UnstructuredList.UnstructuredContent(): the list's own fields, then `items`, each
    with the list's apiVersion and its kind (less `List`) when it names neither."""
    api_version = body.get("apiVersion")
    kind = body.get("kind")
    item_kind = kind.removesuffix("List") if isinstance(kind, str) else ""
    items = []
    for item in body.get("items") or []:
        if isinstance(item, dict) and not item.get("kind") and not item.get("apiVersion"):
            item = {**item, "kind": item_kind, "apiVersion": api_version if isinstance(api_version, str) else ""}
        items.append(item)
    return {**{key: value for key, value in body.items() if key != "items"}, "items": items}
