"""How deploy-runner reaches a chart server: who it is (basic-auth credentials, a client
certificate) and whom it trusts (a CA bundle, or no check at all).

Helm repeats these fields in ChartPathOptions, repo.Entry, getter.Options and the
registry client's options; here they are one frozen dataclass the four derive
from (runner.chart.sources.downloader.SourceOptions, repofile.Entry,
http.HttpOptions, oci.OciOptions). The fields are keyword-only, so each
derived type keeps its own positional fields first.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, kw_only=True)
class ConnectionOptions:
    """Credentials and TLS settings for a chart repository or a registry."""

    username: str = ""
    password: str = ""
    ca_file: str = ""
    cert_file: str = ""
    key_file: str = ""
    insecure_skip_tls_verify: bool = False
    # HTTP repositories: credentials go to every host a chart URL names, not only the
    # repository's (--pass-credentials); registries have no such setting.
    pass_credentials_all: bool = False

    def connection_fields(self) -> dict[str, Any]:
        """These settings alone, as keywords for another of the derived types."""
        return {f.name: getattr(self, f.name) for f in fields(ConnectionOptions)}
