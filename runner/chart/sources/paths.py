"""Helm's config and cache locations (pkg/helmpath and pkg/cli's environment overrides)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


def default_keyring() -> str:
    """Helm's default --keyring: filepath.Join(homedir.HomeDir(), ".gnupg", "pubring.gpg")."""
    return os.path.join(os.path.expanduser("~"), ".gnupg", "pubring.gpg")


def _base(helm_var: str, xdg_var: str, fallback: str) -> Path:
    if os.environ.get(helm_var):
        return Path(os.environ[helm_var])
    xdg = os.environ.get(xdg_var) or str(Path.home() / fallback)
    return Path(xdg) / "helm"


@dataclass(frozen=True)
class HelmPaths:
    """Where repositories.yaml, the repository cache and the registry config live."""

    repository_config: Path
    repository_cache: Path
    registry_config: Path
    content_cache: Path

    @classmethod
    def from_env(cls) -> HelmPaths:
        config = _base("HELM_CONFIG_HOME", "XDG_CONFIG_HOME", ".config")
        cache = _base("HELM_CACHE_HOME", "XDG_CACHE_HOME", ".cache")
        env = os.environ.get
        return cls(
            repository_config=Path(env("HELM_REPOSITORY_CONFIG") or config / "repositories.yaml"),
            repository_cache=Path(env("HELM_REPOSITORY_CACHE") or cache / "repository"),
            registry_config=Path(
                env("HELM_REGISTRY_CONFIG") or config / "registry" / "config.json"
            ),
            content_cache=Path(env("HELM_CONTENT_CACHE") or cache / "content"),
        )

    def index_file(self, repo_name: str) -> Path:
        return self.repository_cache / f"{repo_name}-index.yaml"

    def charts_file(self, repo_name: str) -> Path:
        return self.repository_cache / f"{repo_name}-charts.txt"
