"""The Go objects Helm 4.1.4 hands templates: .Files, .Capabilities, .Release.

They keep Go's shapes: exported fields and methods under their Go names,
`go_type` for `%T`/typeOf, `__go_str__` for `%v`, `go_fields()` for `%+v`,
`go_json()` for toJson (a gojson.StructFields: declaration order, json tags),
`go_yaml_v3()` for toYamlPretty (lowercased field names, declaration order).
Defaults are what `helm template` (no cluster) shows: Kubernetes v1.35.0,
Helm's built-in API version list, Helm v4.1.4's build info.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Sequence
from functools import lru_cache

from runner.errors import RunnerError
from runner.golang.gofunc import ANY, gomethod  # declared: a call never imports inspect (~5 ms)
from runner.golang.strconv import quote
from runner.golang.types import StringSlice

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any

    from runner.encoding.gojson import StructFields

DEFAULT_KUBE_VERSION = "v1.35.0"

# chartutil.DefaultVersionSet of Helm 4.1.4 (client-go v1.35 scheme), in its order.
DEFAULT_API_VERSIONS: tuple[str, ...] = (
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
)


class KubeVersion:
    """common.KubeVersion: Version (as given, v-prefixed), Major, Minor.

    String() and the hidden second field are the generic version
    (vMAJOR.MINOR[.PATCH...], no pre-release); GitVersion() is Version.
    String has a pointer receiver: only `{{ .Capabilities.KubeVersion }}` (an
    addressable field) prints through it; passed to print/printf/toString or
    put in a list it is the struct, `{v1.35.0 v1.35.0 1 35}`.
    """

    go_type = "common.KubeVersion"
    go_kind = "struct"
    go_string_addr_only = True

    def __init__(self, version: str, normalized: str, major: str, minor: str) -> None:
        self.Version = version
        self.Major = major
        self.Minor = minor
        self._normalized = normalized

    @gomethod()
    def String(self) -> str:  # noqa: N802 - Go's method name
        return self._normalized

    @gomethod()
    def GitVersion(self) -> str:  # noqa: N802
        return self.Version

    def __go_str__(self) -> str:
        return f"{{{self.Version} {self._normalized} {self.Major} {self.Minor}}}"

    def go_fields(self) -> list[tuple[str, Any]]:
        return [("Version", self.Version), ("normalizedVersion", self._normalized),
                ("Major", self.Major), ("Minor", self.Minor)]

    def go_json(self) -> StructFields:
        from runner.encoding.gojson import StructFields  # only for toJson of .Capabilities

        return StructFields(Version=self.Version, Major=self.Major, Minor=self.Minor)

    def go_yaml_v3(self) -> list[tuple[str, Any]]:
        return [("version", self.Version), ("major", self.Major), ("minor", self.Minor)]


class VersionSet(StringSlice):
    """common.VersionSet: a []string with Has."""

    __slots__ = ()
    go_type = "common.VersionSet"

    @gomethod((ANY,))
    def Has(self, api_version: str) -> bool:  # noqa: N802
        return api_version in self


class HelmVersion:
    """version.BuildInfo of the Helm we stand in for."""

    go_type = "version.BuildInfo"
    go_kind = "struct"
    Version = "v4.1.4"
    GitCommit = "05fa37973dc9e42b76e1d2883494c87174b6074f"
    GitTreeState = "clean"
    GoVersion = "go1.25.9"
    KubeClientVersion = "v1.35"

    def __go_str__(self) -> str:
        return (f"{{{self.Version} {self.GitCommit} {self.GitTreeState} "
                f"{self.GoVersion} {self.KubeClientVersion}}}")

    def go_fields(self) -> list[tuple[str, Any]]:
        return [("Version", self.Version), ("GitCommit", self.GitCommit),
                ("GitTreeState", self.GitTreeState), ("GoVersion", self.GoVersion),
                ("KubeClientVersion", self.KubeClientVersion)]

    def go_json(self) -> StructFields:
        from runner.encoding.gojson import StructFields

        tags = ("version", "git_commit", "git_tree_state", "go_version", "kube_client_version")
        return StructFields(zip(tags, (v for _, v in self.go_fields()), strict=True))

    def go_yaml_v3(self) -> list[tuple[str, Any]]:
        return [(name.lower(), value) for name, value in self.go_fields()]


class Capabilities:
    """*common.Capabilities."""

    go_type = "*common.Capabilities"

    def __init__(self, kube: KubeVersion, api_versions: VersionSet) -> None:
        self.KubeVersion = kube
        self.APIVersions = api_versions
        self.HelmVersion = HelmVersion()

    def go_elem_str(self) -> str:
        apis = "[" + " ".join(self.APIVersions) + "]"
        return f"{{{self.KubeVersion.__go_str__()} {apis} {self.HelmVersion.__go_str__()}}}"

    def __go_str__(self) -> str:
        return "&" + self.go_elem_str()

    def go_json(self) -> StructFields:
        from runner.encoding.gojson import StructFields

        return StructFields(
            KubeVersion=self.KubeVersion.go_json(),
            APIVersions=list(self.APIVersions),
            HelmVersion=self.HelmVersion.go_json(),
        )

    def go_yaml_v3(self) -> list[tuple[str, Any]]:
        return [("kubeversion", self.KubeVersion), ("apiversions", self.APIVersions),
                ("helmversion", self.HelmVersion)]


_DIGITS_AND_DOTS = frozenset("0123456789.")


def _generic_components(text: str) -> list[str] | None:
    """The numbers k8s ParseGeneric's `^\\s*v?([0-9]+(?:\\.[0-9]+)*)(.*)$` finds
    (Go's \\s is ASCII, its `.` and `$` stop at a newline), or None."""
    start = len(text) - len(text.lstrip("\t\n\f\r "))
    start += text.startswith("v", start)
    run_end = start
    while run_end < len(text) and text[run_end] in _DIGITS_AND_DOTS:
        run_end += 1
    components: list[str] = []
    for part in text[start:run_end].split("."):
        if not part:
            break
        components.append(part)
    rest_start = start + len(".".join(components))
    if not components or "\n" in text[rest_start:]:
        return None
    return components


def parse_kube_version(text: str) -> KubeVersion:
    """common.ParseKubeVersion: k8s util/version ParseGeneric, at least MAJOR.MINOR."""
    components = _generic_components(text)
    if components is None:
        raise _kube_version_error(text, f"could not parse {quote(text)} as version")
    if len(components) < 2:
        raise _kube_version_error(text, f"illegal version string {quote(text)}")
    numbers = [_generic_number(text, index, component) for index, component in enumerate(components)]
    version = text if text.startswith("v") else f"v{text}"
    return KubeVersion(version, "v" + ".".join(map(str, numbers)), str(numbers[0]), str(numbers[1]))


def _generic_number(text: str, index: int, component: str) -> int:
    """ParseGeneric's reading of one component: no leading zero on the first, a uint64."""
    if index == 0 and component.startswith("0") and component != "0":
        reason = f"illegal zero-prefixed version component {quote(component)} in {quote(text)}"
        raise _kube_version_error(text, reason)
    number = int(component)
    if number >= 1 << 64:
        quoted = quote(component)
        raise _kube_version_error(text, f"illegal non-numeric version component {quoted} in {quote(text)}: "
                                        f"strconv.ParseUint: parsing {quoted}: value out of range")
    return number


def _kube_version_error(text: str, reason: str) -> RunnerError:
    return RunnerError(f"invalid kube version {_squote(text)}: {reason}")


def _squote(text: str) -> str:
    return "'" + text + "'"


def default_capabilities(kube_version: str | None = None, extra_apis: Sequence[str] = ()) -> Capabilities:
    """What `helm template` uses offline: defaults plus --kube-version/--api-versions."""
    kube = parse_kube_version(kube_version) if kube_version else _default_kube()
    return Capabilities(kube, VersionSet([*DEFAULT_API_VERSIONS, *extra_apis]))


@lru_cache(maxsize=1)
def _default_kube() -> KubeVersion:
    return parse_kube_version(DEFAULT_KUBE_VERSION)


def server_capabilities(version_info: dict[str, Any], api_versions: Iterable[str]) -> Capabilities:
    """getCapabilities against a cluster: KubeVersion as /version states it (gitVersion, and
    major and minor as given: EKS's minor is "29+"), each served group/version and
    group/version/Kind once, and none of the offline defaults."""
    git = str(version_info.get("gitVersion", ""))
    kube = KubeVersion(git, git, str(version_info.get("major", "")), str(version_info.get("minor", "")))
    return Capabilities(kube, VersionSet(sorted(set(api_versions))))


def release_map(name: str, namespace: str, revision: int, is_install: bool, is_upgrade: bool) -> dict[str, Any]:
    """.Release as Helm builds it, plus HIP-0029's History (empty offline)."""
    return {
        "Name": name,
        "Namespace": namespace,
        "IsUpgrade": is_upgrade,
        "IsInstall": is_install,
        "Revision": revision,
        "Service": "Helm",
        "History": [],
    }


# ------------------------------------------------------------ .Files


class Files(dict):
    """engine.files: a map[string][]byte of the chart's non-template files."""

    __slots__ = ()
    go_type = "engine.files"

    @gomethod((ANY,))
    def GetBytes(self, name: str) -> bytes:  # noqa: N802
        return self.get(name, b"")

    @gomethod((ANY,))
    def Get(self, name: str) -> str:  # noqa: N802
        return _go_string(self.get(name, b""))

    @gomethod((ANY,))
    def Glob(self, pattern: str) -> Files:  # noqa: N802
        matcher = compile_glob(pattern)
        return Files({k: v for k, v in self.items() if matcher(k)})

    @gomethod((ANY,))
    def Lines(self, path: str) -> StringSlice:  # noqa: N802
        data = self.get(path)
        if not data:
            return StringSlice()
        text = _go_string(data)
        if text.endswith("\n"):
            text = text[:-1]
        return StringSlice(text.split("\n"))

    # Helm returns "" only for a nil map; .Files and Glob results never are ("{}" when empty).
    @gomethod()
    def AsConfig(self) -> str:  # noqa: N802
        return _to_yaml({posixpath.basename(k): _go_string(v) for k, v in self.items()})

    @gomethod()
    def AsSecrets(self) -> str:  # noqa: N802
        import base64

        return _to_yaml({posixpath.basename(k): base64.b64encode(v).decode("ascii")
                         for k, v in self.items()})


def _go_string(data: bytes) -> str:
    # Go strings hold any bytes; invalid UTF-8 survives as surrogates.
    return data.decode("utf-8", "surrogateescape")


def _to_yaml(value: dict[str, str]) -> str:
    """Helm's toYAML (the same function templates call as toYaml)."""
    from runner.funcs import function_map

    return function_map()["toYaml"].impl(value)


def compile_glob(pattern: str) -> Any:
    """gobwas/glob with '/' as separator; an invalid pattern matches everything ("**")."""
    try:
        regex = re.compile(_glob_regex(pattern), re.DOTALL)
    except (ValueError, re.error):
        return lambda _name: True
    return lambda name: regex.fullmatch(name) is not None


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i, depth = 0, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            if i + 1 >= len(pattern):
                raise ValueError("unexpected end after escape")
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if ch == "*":
            if pattern.startswith("**", i):
                out.append(".*")
                i += 2
                continue
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            end, text = _glob_class(pattern, i)
            out.append(text)
            i = end
            continue
        elif ch == "{":
            depth += 1
            out.append("(?:")
        elif ch == "}" and depth:
            depth -= 1
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(ch))
        i += 1
    if depth:
        raise ValueError("unclosed alternatives")
    return "".join(out)


def _glob_class(pattern: str, start: int) -> tuple[int, str]:
    end = pattern.find("]", start + 1)
    if end == -1:
        raise ValueError("unclosed class")
    body = pattern[start + 1:end]
    negate = body.startswith("!")
    if negate:
        body = body[1:]
    if not body:
        raise ValueError("empty class")
    escaped = "".join("\\" + c if c in "\\^[]" else c for c in body)
    return end + 1, f"[{'^' if negate else ''}{escaped}]"


def files_from(entries: Iterable[tuple[str, bytes]]) -> Files:
    return Files(dict(entries))


__all__ = [
    "Capabilities",
    "Files",
    "HelmVersion",
    "KubeVersion",
    "VersionSet",
    "default_capabilities",
    "parse_kube_version",
    "release_map",
]
