"""Helm charts in OCI registries (Helm's pkg/registry), through the `oras` client.

A chart is an OCI image manifest whose config blob is the chart's metadata as
JSON (application/vnd.cncf.helm.config.v1+json) and whose one layer is the
chart archive (application/vnd.cncf.helm.chart.content.v1.tar+gzip). Tags are
chart versions with `+` written as `_`. `oras` (and `requests`) are imported
only when a registry is actually contacted.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from runner.chart import gostructs
from runner.chart.model import Metadata
from runner.chart.sources.connection import ConnectionOptions
from runner.chart.sources.errors import SourceError
from runner.chart.sources.messages import WARNING, Say
from runner.encoding.gojson import time_text
from runner.golang import semver

SCHEME = "oci://"
CONFIG_MEDIA_TYPE = "application/vnd.cncf.helm.config.v1+json"
CHART_MEDIA_TYPE = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
LEGACY_CHART_MEDIA_TYPE = "application/tar+gzip"
PROV_MEDIA_TYPE = "application/vnd.cncf.helm.chart.provenance.v1.prov"
MANIFEST_MEDIA_TYPE = "application/vnd.oci.image.manifest.v1+json"
UNDERSCORE_MESSAGE = """
OCI artifact references (e.g. tags) do not support the plus sign (+). To support
storing semantic versions, Helm adopts the convention of changing plus (+) to
an underscore (_) in chart version tags when pushing to a registry and back to
a plus (+) when pulling from a registry."""


@dataclass(frozen=True)
class OciOptions(ConnectionOptions):
    """Transport and credentials for one registry (Helm's registry client options)."""

    plain_http: bool = False


@dataclass(frozen=True)
class Reference:
    """host[:port]/repository[:tag][@digest] of an oci:// chart reference."""

    host: str
    repository: str
    tag: str = ""
    digest: str = ""

    def uri(self, tag: str | None = None) -> str:
        tag = self.tag if tag is None else tag
        return f"{self.host}/{self.repository}" + (f":{tag}" if tag else "")

    def pinned_uri(self) -> str:
        """The reference by digest, as Helm prints it: the digest replaces any tag."""
        return f"{self.host}/{self.repository}@{self.digest}"

    @property
    def chart_name(self) -> str:
        return self.repository.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Pulled:
    """A chart fetched from a registry: its archive and where it came from."""

    data: bytes
    reference: str
    manifest_digest: str
    version: str
    prov: bytes | None = None
    file_name: str = ""  # the archive's name as Helm's downloader saves it
    annotations: dict[str, str] = field(default_factory=dict)  # the manifest's


def is_oci(ref: str) -> bool:
    return ref.startswith(SCHEME)


def parse_reference(ref: str) -> Reference:
    """Split oci://host/path/chart[:tag][@digest] as Helm's newReference does (the digest
    is whatever follows the last `@`; an empty one is no digest)."""
    rest = ref.removeprefix(SCHEME)
    at = rest.rfind("@")
    digest = ""
    if at >= 0:
        rest, digest = rest[:at], rest[at + 1:]
    host, _, path = rest.partition("/")
    if not host or not path:
        raise SourceError(f'invalid reference "{ref}": repository name must be specified')
    tag = ""
    last = path.rsplit("/", 1)[-1]
    if ":" in last:
        path, _, tag = path.rpartition(":")
    return Reference(host, path, tag, digest)


# go-digest: the algorithms Helm links in (their sizes in bytes) and the general form.
_DIGEST_SIZES = {"sha256": 32, "sha384": 48, "sha512": 64}
_DIGEST_FORM = r"[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+"


def check_digest(digest: str) -> None:
    """go-digest's Validate, reported as oras-go reports an invalid reference."""
    algorithm, colon, encoded = digest.partition(":")
    size = _DIGEST_SIZES.get(algorithm)
    if not algorithm or not colon or not encoded:
        problem = "invalid checksum digest format"
    elif size is None:
        known_form = re.fullmatch(_DIGEST_FORM, digest)
        problem = "unsupported digest algorithm" if known_form else "invalid checksum digest format"
    elif len(encoded) != 2 * size:
        problem = "invalid checksum digest length"
    elif not re.fullmatch("[a-f0-9]+", encoded):
        problem = "invalid checksum digest format"
    else:
        return
    raise SourceError(f'invalid reference: invalid digest "{digest}": {problem}')


def archive_name(path_base: str) -> str:
    """ChartDownloader's file name for an OCI reference: the last `:` becomes `-`."""
    head, colon, tail = path_base.rpartition(":")
    return f"{head}-{tail}.tgz" if colon else f"{path_base}.tgz"


def version_to_tag(version: str) -> str:
    return version.replace("+", "_")


def _with_stored_credentials(ref: Reference, options: OciOptions) -> OciOptions:
    if options.username or options.password:
        return options
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.registry_config import stored_credentials

    user, password = stored_credentials(ref.host, HelmPaths.from_env().registry_config)
    return replace(options, username=user, password=password) if user or password else options


def _client(ref: Reference, options: OciOptions) -> Any:
    import oras.provider

    options = _with_stored_credentials(ref, options)

    verify: bool | str = not options.insecure_skip_tls_verify
    if options.ca_file and verify:
        verify = options.ca_file
    has_credentials = bool(options.username or options.password)
    basic = _challenge(ref, options, verify).lower().startswith("basic")

    class _Registry(oras.provider.Registry):  # type: ignore[misc]
        def do_request(self, url: str, method: str = "GET", data: Any = None,
                       headers: dict[str, str] | None = None, json: Any = None,
                       stream: bool = False) -> Any:
            if basic and not has_credentials:
                response = self.session.request(method, url, data=data, json=json, headers=headers or {},
                                                stream=stream, verify=self._tls_verify)
                if response.status_code == 401:
                    raise SourceError(f'{method} "{url}": basic credential not found')
                return response
            # oras retries failed requests with sleeps of minutes; Helm reports the first failure.
            return oras.provider.Registry.do_request.__wrapped__(self, url, method, data, headers, json, stream)

    backend = "basic" if basic else "token"
    client = _Registry(hostname=ref.host, insecure=options.plain_http, tls_verify=verify,
                       auth_backend=backend)
    client.basic_challenge = basic
    if options.cert_file and options.key_file:
        client.session.cert = (options.cert_file, options.key_file)
    if options.username or options.password:
        client.auth.set_basic_auth(options.username, options.password)
    return client


def _challenge(ref: Reference, options: OciOptions, verify: bool | str) -> str:
    """The registry's WWW-Authenticate answer to /v2/ (Basic or Bearer), as Docker clients ping."""
    import requests

    scheme = "http" if options.plain_http else "https"
    cert = (options.cert_file, options.key_file) if options.cert_file and options.key_file else None
    url = f"{scheme}://{ref.host}/v2/"
    try:
        response = requests.get(url, verify=verify, cert=cert, timeout=60)
    except requests.exceptions.RequestException:
        return ""
    return str(response.headers.get("WWW-Authenticate", ""))


def _container(client: Any, ref: Reference, tag: str) -> Any:
    return client.get_container(ref.uri(tag or None))


def _request(client: Any, url: str, method: str = "GET", **kwargs: Any) -> Any:
    import requests

    from runner.chart.sources.http import go_net_error

    try:
        return client.do_request(url, method, **kwargs)
    except requests.exceptions.RequestException as exc:
        # net/http's url.Error names the method as Go spells it: "Get", "Put".
        raise SourceError(f'{method.capitalize()} "{url}": {go_net_error(exc, url)}') from exc
    except ValueError as exc:  # oras: an authentication challenge it could not answer
        raise SourceError(f'{method} "{url}": {exc}') from exc


def login(host: str, options: OciOptions) -> None:
    """Client.Login: the registry must accept the credentials on its /v2/ endpoint."""
    ref = Reference(host, "")
    try:
        client = _client(ref, options)
        url = f"{client.prefix}://{host}/v2/"
        if client.basic_challenge and not (options.username and options.password):
            raise SourceError(f'GET "{url}": missing username or password for basic auth')
        response = _request(client, url)
        if response.status_code != 200:
            raise SourceError(f'GET "{url}": {_registry_error(response)}')
    except SourceError as exc:
        raise SourceError(f'authenticating to "{host}": {exc}') from exc


def tags(ref: Reference, options: OciOptions) -> list[str]:
    """Registry tags that are chart versions, newest first, `_` shown as `+` (Client.Tags)."""
    client = _client(ref, options)
    url = f"{client.prefix}://{ref.host}/v2/{ref.repository}/tags/list"
    response = _request(client, url)
    if response.status_code != 200:
        raise SourceError(f'GET "{url}": {_registry_error(response)}')
    found = [t.replace("_", "+") for t in response.json().get("tags") or []]
    versions = []
    for tag in found:
        try:
            versions.append((semver.new_version(tag), tag))
        except semver.SemverError:
            continue
    ordered = sorted(versions, key=lambda pair: _SortKey(pair[0]), reverse=True)
    return [tag for _, tag in ordered]


class _SortKey:
    def __init__(self, version: semver.Version) -> None:
        self.version = version

    def __lt__(self, other: _SortKey) -> bool:
        return semver.compare(self.version, other.version) < 0


def matching_tag(available: list[str], version: str) -> str:
    """GetTagMatchingVersionOrConstraint."""
    if version and version in available:
        return version
    try:
        constraint = semver.new_constraint(version or "*")
    except semver.SemverError as exc:
        raise SourceError(str(exc)) from exc
    for tag in available:
        try:
            if constraint.check(semver.new_version(tag)):
                return tag
        except semver.SemverError:
            continue
    raise SourceError(f"could not locate a version matching provided version string {version}")


def resolve_tag(ref: Reference, version: str, options: OciOptions) -> str:
    """getOciURI: the reference's tag, an explicit version as it is, else the best matching tag."""
    if ref.tag:
        return ref.tag.replace("_", "+")
    try:
        semver.new_version(version)
        return version
    except semver.SemverError:
        pass
    available = tags(ref, options)
    if not available:
        raise SourceError(f"unable to locate any tags in provided repository: {SCHEME}{ref.uri()}")
    return matching_tag(available, version)


def pull(chart_ref: str, version: str, options: OciOptions, *, say: Say) -> Pulled:
    """Fetch the chart archive a reference (and version constraint) names; report it to
    `say` as Helm's registry client does."""
    ref = parse_reference(chart_ref)
    tag_form = version_to_tag(ref.tag)  # Helm compares --version with the tag as stored
    if version and ref.tag and version != tag_form:
        raise SourceError(f"chart reference and version mismatch: {version} is not {tag_form}")
    if ref.digest:
        return _pull_pinned(ref, version or tag_form, chart_ref, options, say)
    chosen = resolve_tag(ref, version, options)
    client = _client(ref, options)
    tag = version_to_tag(chosen)
    raw, manifest = _manifest(client, ref, tag, ref.uri(tag))
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    data, prov = _chart_blobs(client, ref, ref.uri(tag), manifest)
    report_pull(ref.uri(tag), digest, say)
    return Pulled(data, ref.uri(tag), digest, chosen, prov, archive_name(f"{ref.chart_name}:{chosen}"),
                  _annotations(manifest))


def _pull_pinned(ref: Reference, version: str, chart_ref: str, options: OciOptions,
                 say: Say) -> Pulled:
    """A reference with a digest (getOciURI): a tag or --version must name the same
    manifest when the registry knows it; the manifest is fetched by digest."""
    client = _client(ref, options)
    if version and _OCI_TAG.fullmatch(version):
        tagged = _tag_digest(client, ref, version)
        if tagged and tagged != ref.digest:
            raise SourceError(f"chart reference digest mismatch: {tagged} is not {ref.digest}")
    check_digest(ref.digest)
    raw, manifest = _manifest(client, ref, ref.digest, ref.pinned_uri())
    algorithm, _, encoded = ref.digest.partition(":")
    if hashlib.new(algorithm, raw).hexdigest() != encoded:
        raise SourceError(f"{ref.pinned_uri()}: manifest does not match its digest")
    data, prov = _chart_blobs(client, ref, ref.pinned_uri(), manifest)
    report_pull(ref.pinned_uri(), ref.digest, say)
    # Helm's downloader names the file after the URL path: rewritten to name@digest
    # when a version was given, else the reference's own last segment.
    base = f"{ref.chart_name}@{ref.digest}" if version else chart_ref.rsplit("/", 1)[-1]
    return Pulled(data, ref.pinned_uri(), ref.digest, version, prov, archive_name(base),
                  _annotations(manifest))


def _annotations(manifest: dict[str, Any]) -> dict[str, str]:
    found = manifest.get("annotations")
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}


_OCI_TAG = re.compile(r"[\w][\w.-]{0,127}")


def _tag_digest(client: Any, ref: Reference, tag: str) -> str:
    """The digest of the manifest `tag` names, or "" when the registry cannot say."""
    url = f"{client.prefix}://{ref.host}/v2/{ref.repository}/manifests/{tag}"
    try:
        response = _request(client, url, headers={"Accept": MANIFEST_MEDIA_TYPE})
    except SourceError:
        return ""
    if response.status_code != 200:
        return ""
    return "sha256:" + hashlib.sha256(response.content).hexdigest()


def _manifest(client: Any, ref: Reference, reference: str, shown: str) -> tuple[bytes, dict[str, Any]]:
    """The raw image manifest `reference` (a tag or a digest) names, and its JSON."""
    url = f"{client.prefix}://{ref.host}/v2/{ref.repository}/manifests/{reference}"
    try:
        response = _request(client, url, headers={"Accept": MANIFEST_MEDIA_TYPE})
    except SourceError as exc:
        raise SourceError(f'failed to perform "FetchReference" on source: {exc}') from exc
    if response.status_code == 404:
        raise SourceError(f'failed to perform "FetchReference" on source: {shown}: not found')
    _check(response, shown)
    return response.content, json.loads(response.content)


def _chart_blobs(client: Any, ref: Reference, shown: str,
                 manifest: dict[str, Any]) -> tuple[bytes, bytes | None]:
    """The chart archive layer and, when the manifest has one, the provenance layer."""
    data = _blob(client, ref, shown, _chart_layer(manifest))
    prov_layer = next((la for la in manifest.get("layers") or [] if la.get("mediaType") == PROV_MEDIA_TYPE), None)
    return data, _blob(client, ref, shown, prov_layer) if prov_layer else None


def report_pull(reference: str, digest: str, say: Say) -> None:
    """What Helm's registry client writes (on stderr) after each pull."""
    say(WARNING, f"Pulled: {reference}\nDigest: {digest}")
    if "_" in reference:
        say(WARNING, f"{reference} contains an underscore.\n{UNDERSCORE_MESSAGE}")


def _blob(client: Any, ref: Reference, shown: str, layer: dict[str, Any]) -> bytes:
    """A layer's bytes, checked against its digest."""
    url = f"{client.prefix}://{ref.host}/v2/{ref.repository}/blobs/{layer['digest']}"
    response = _request(client, url)
    _check(response, shown)
    data = bytes(response.content)
    if "sha256:" + hashlib.sha256(data).hexdigest() != layer["digest"]:
        raise SourceError(f"{shown}: layer does not match its digest {layer['digest']}")
    return data


def _chart_layer(manifest: dict[str, Any]) -> dict[str, Any]:
    config_type = (manifest.get("config") or {}).get("mediaType")
    if config_type != CONFIG_MEDIA_TYPE:
        raise SourceError(
            f"manifest config has mediatype {config_type}, expected {CONFIG_MEDIA_TYPE}"
        )
    for layer in manifest.get("layers") or []:
        if layer.get("mediaType") in (CHART_MEDIA_TYPE, LEGACY_CHART_MEDIA_TYPE):
            return dict(layer)
    raise SourceError(f"manifest does not contain a layer with mediatype {CHART_MEDIA_TYPE}")


def _registry_error(response: Any) -> str:
    """oras-go's wording of a registry error answer."""
    from runner.golang.types import format_value

    text = f"response status code {response.status_code}: "
    try:
        errors = response.json().get("errors") or []
    except ValueError:
        errors = []
    if not errors:
        return text + response.reason.lower()
    parts = []
    for err in errors:
        part = f"{str(err.get('code', '')).lower().replace('_', ' ')}: {err.get('message', '')}"
        if err.get("detail"):
            part += f": {format_value(err['detail'])}"
        parts.append(part)
    return text + "; ".join(parts)


def _check(response: Any, what: str) -> None:
    if response.status_code in (200, 201, 202):
        return
    if response.status_code == 404:
        raise SourceError(f"{what}: not found")
    if response.status_code in (401, 403):
        raise SourceError(f"{what}: unauthorized: authentication required")
    raise SourceError(f"{what}: {response.status_code} {response.reason}")


def push(data: bytes, metadata: Metadata, remote: str, options: OciOptions, prov: bytes | None = None) -> Pulled:
    """Push a chart archive (and its .prov) to oci://host/path as <path>/<name>:<version> (Client.Push)."""
    base = parse_reference(remote.rstrip("/") + "/" + metadata.name)
    if parse_reference(remote).tag:
        raise SourceError(f"--version flag or tag in {remote} is not supported for push")
    tag = version_to_tag(metadata.version)
    pinned = parse_reference(f"{remote.rstrip('/')}/{metadata.name}:{tag}").digest
    if pinned:  # Helm parses remote/name:tag whole: the "digest" swallows the rest
        check_digest(pinned)
    ref = Reference(base.host, base.repository, tag)
    client = _client(ref, options)
    container = _container(client, ref, tag)
    config = gostructs.marshal(gostructs.metadata_struct(metadata)).encode()
    blobs = [(config, _descriptor(config, CONFIG_MEDIA_TYPE)), (data, _descriptor(data, CHART_MEDIA_TYPE))]
    if prov is not None:
        blobs.append((prov, _descriptor(prov, PROV_MEDIA_TYPE)))
    manifest = {
        "schemaVersion": 2,
        "mediaType": MANIFEST_MEDIA_TYPE,
        "config": blobs[0][1],
        "layers": [descriptor for _, descriptor in blobs[1:]],
        "annotations": oci_annotations(metadata),
    }
    raw = json.dumps(manifest, separators=(",", ":")).encode()
    digest = "sha256:" + hashlib.sha256(raw).hexdigest()
    base_url = f"{client.prefix}://{ref.host}/v2/{ref.repository}"
    try:
        _request(client, f"{base_url}/manifests/{digest}", "HEAD")
    except SourceError as exc:  # oras-go's Copy asks whether the root exists first
        raise SourceError(f'failed to perform "Exists" on destination: {exc}') from exc
    for blob, descriptor in blobs:
        _upload(client, container, blob, descriptor)
    response = _request(client, f"{base_url}/manifests/{tag}", "PUT", data=raw,
                        headers={"Content-Type": MANIFEST_MEDIA_TYPE})
    _check(response, ref.uri())
    return Pulled(data, ref.uri(), digest, metadata.version)


def _descriptor(blob: bytes, media_type: str) -> dict[str, Any]:
    return {"mediaType": media_type, "digest": "sha256:" + hashlib.sha256(blob).hexdigest(), "size": len(blob)}


def _upload(client: Any, container: Any, blob: bytes, descriptor: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory(prefix="deploy-runner-oci-") as tmp:
        path = Path(tmp) / "blob"
        path.write_bytes(blob)
        response = client.upload_blob(str(path), container, descriptor)
    _check(response, container.uri)


def oci_annotations(md: Metadata) -> dict[str, str]:
    """generateOCIAnnotations: chart annotations plus the org.opencontainers.image.* set."""
    created = time_text(datetime.datetime.now(datetime.UTC).replace(microsecond=0))
    authors = ", ".join(
        f"{m.name} ({m.email})" if m.email else m.name for m in md.maintainers if m.name
    )
    standard = {
        "org.opencontainers.image.description": md.description,
        "org.opencontainers.image.title": md.name,
        "org.opencontainers.image.version": md.version,
        "org.opencontainers.image.url": md.home,
        "org.opencontainers.image.created": created,
        "org.opencontainers.image.source": md.sources[0] if md.sources else "",
        "org.opencontainers.image.authors": authors,
    }
    annotations = {k: v for k, v in (md.annotations or {}).items()}
    annotations.update({k: v for k, v in standard.items() if v})
    return annotations
