"""deploy-runner: a Python deploy runner for Helm charts, byte-compatible with Helm 4."""

__version__ = "0.1.0"
