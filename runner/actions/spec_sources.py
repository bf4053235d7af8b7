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
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

from runner.spec.resolve import ChartRef, ReleaseSpec


def chart_path(chart: ChartRef) -> str:
    """A local path to the chart (fetched into Helm's content cache when remote; its
    provenance checked first when the release or its repository says verify)."""
    from runner.chart.sources.downloader import SourceOptions, locate_chart
    from runner.chart.sources.paths import default_keyring

    if chart.located:
        return chart.located
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
        return chart.ref
    options = replace(
        options, verify=verify, keyring=chart.keyring or options.keyring or default_keyring(),
        insecure_skip_tls_verify=options.insecure_skip_tls_verify or chart.insecure_skip_tls_verify,
        plain_http=options.plain_http or chart.plain_http)
    return locate_chart(chart.ref, options)


def release_values(release: ReleaseSpec, source: str = "") -> dict[str, Any]:
    """The user values of `release`, merged as Helm merges -f files and --set flags."""
    from runner.chart.uservalues import ValueOptions, merge_options, read_values_file
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

    def read(name: str) -> bytes:
        return inline[name] if name in inline else read_values_file(name)

    sets = release.sets
    return merge_options(ValueOptions(value_files=names, set=sets.get("set", ()),
                                      set_string=sets.get("set-string", ()),
                                      set_file=sets.get("set-file", ())), read)
