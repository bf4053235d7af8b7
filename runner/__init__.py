"""deploy-runner: a Python deploy runner for Helm charts, byte-compatible with Helm 4."""

from __future__ import annotations

_version: list[str] = []


def version() -> str:
    """deploy-runner's version, whose one source is pyproject.toml: the installed
    distribution's metadata, or, run from a source tree that is not installed (the GitHub
    Action runs from its own files), that tree's pyproject.toml. Read on first use:
    importlib.metadata costs ~25 ms to import, which no render pays."""
    if not _version:
        _version.append(_installed() or _source_tree() or "0+unknown")
    return _version[0]


def _installed() -> str:
    from importlib import metadata

    try:
        return metadata.version("deploy-runner")
    except metadata.PackageNotFoundError:
        return ""


def _source_tree() -> str:
    import tomllib
    from pathlib import Path

    try:
        project = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    except (OSError, ValueError):
        return ""
    fields = project.get("project") or {}
    return str(fields.get("version", "")) if fields.get("name") == "deploy-runner" else ""


def __getattr__(name: str) -> str:
    if name == "__version__":
        return version()
    raise AttributeError(f"module 'runner' has no attribute {name!r}")
