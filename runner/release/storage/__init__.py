"""Release storage: a small driver interface (as Helm's pkg/storage/driver) and the history logic on top."""

from runner.release.storage.driver import (
    Driver,
    RecordHead,
    ReleaseExistsError,
    ReleaseNotFoundError,
)
from runner.release.storage.memory import MemoryDriver
from runner.release.storage.storage import Storage

__all__ = [
    "Driver",
    "MemoryDriver",
    "RecordHead",
    "ReleaseExistsError",
    "ReleaseNotFoundError",
    "Storage",
]
