"""Where a spec's release gets its chart and its values.

Charts: a local path as it is; `REPO/chart` through the repository the spec
declares (its URL used directly, as `--repo URL` does: the user's Helm
repositories file is neither read nor written), `oci://...` (and `REPO/chart` of an
`oci: true` repository) through the registry; either way cached as Helm caches
downloads. Credentials not in the spec come from NAME_USERNAME and NAME_PASSWORD
(the repository's name upper-cased, `-` as `_`), as helmfile reads them.

Values: the release's entries in order — files read as `-f` reads them, inline
mappings as if written to a file and passed with `-f` (as helmfile does) — then
its secretValues files, then `set`/`setString` entries (--set, --set-string,
--set-file), merged by Helm's rules (runner.chart.uservalues).

Both go into the release's DeployRequest (runner.actions.run.release_request), whose
chart and values runner.actions.prepare.chart_input locates and reads.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from runner.spec.resolve import ChartRef, ReleaseSpec

if TYPE_CHECKING:
    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.uservalues import ValueOptions


def chart_source(chart: ChartRef) -> tuple[str, SourceOptions | None]:
    """The chart reference to locate and where from: (a path, None) for a local chart not
    to be verified (or the archive already fetched: `located`); else the settings of its
    repository (or registry) and of the release (runner.actions.prepare.chart_input
    fetches it into Helm's content cache, its provenance checked first when the release
    or its repository says verify)."""
    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.sources.paths import default_keyring

    if chart.located:
        return chart.located, None
    repo = chart.repository
    options = SourceOptions(version=chart.version)
    if repo is not None:
        env = repo.name.upper().replace("-", "_")
        options = SourceOptions(
            version=chart.version, repo_url="" if chart.kind == "oci" else repo.url,
            username=repo.username or os.environ.get(f"{env}_USERNAME", ""),
            password=repo.password or os.environ.get(f"{env}_PASSWORD", ""),
            ca_file=repo.ca_file, cert_file=repo.cert_file, key_file=repo.key_file,
            insecure_skip_tls_verify=repo.skip_tls_verify, pass_credentials_all=repo.pass_credentials,
            plain_http=repo.plain_http, verify=repo.verify, keyring=repo.keyring)
    verify = options.verify or chart.verify
    if chart.kind == "path" and not verify:
        return chart.ref, None
    return chart.ref, replace(
        options, verify=verify, keyring=chart.keyring or options.keyring or default_keyring(),
        insecure_skip_tls_verify=options.insecure_skip_tls_verify or chart.insecure_skip_tls_verify,
        plain_http=options.plain_http or chart.plain_http)


def release_values(release: ReleaseSpec, source: str = "") -> tuple[ValueOptions, dict[str, bytes]]:
    """The values of `release` as the -f and --set family flags give them, and the documents
    of its inline mappings by the names those flags give them (merged by Helm's rules:
    runner.chart.uservalues)."""
    from runner.chart.uservalues import ValueOptions
    from runner.encoding import goyaml

    inline: dict[str, bytes] = {}
    names = []
    for entry in release.values:
        if entry.inline is None:
            names.append(entry.file)
            continue
        name = f"{source or 'the spec'}:{entry.origin} (inline values)"
        inline[name] = goyaml.dump(entry.inline).encode("utf-8", "surrogateescape")
        names.append(name)
    names += release.secret_values
    sets = release.sets
    return ValueOptions(value_files=names, set=sets.get("set", ()), set_string=sets.get("set-string", ()),
                        set_file=sets.get("set-file", ())), inline
