"""The bridge from runner.kube's client: OpenAPI reads through KubeClient.request,
one metadata source per client."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from runner.kube.patch import PatchError
from runner.kube.patch.bridge import client_get_json, metadata_for


@dataclass
class Reply:
    status: int
    body: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def message(self) -> str:
        return str(self.body.get("message", ""))


@dataclass
class FakeClient:
    calls: list[tuple[str, list[tuple[str, str]]]] = field(default_factory=list)

    def request(self, method: str, path: str, *, query: list[tuple[str, str]] | None = None,
                **_: Any) -> Reply:
        self.calls.append((path, list(query or [])))
        if path == "/openapi/v3":
            return Reply(200, {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=X"}}})
        return Reply(404, {"message": "nope"})


def test_get_json_splits_the_hash_query_off_the_server_relative_url() -> None:
    client = FakeClient()
    with pytest.raises(PatchError, match="nope"):
        client_get_json(client)("/openapi/v3/api/v1?hash=X")
    assert client.calls == [("/openapi/v3/api/v1", [("hash", "X")])]


def test_one_metadata_source_per_client() -> None:
    client = FakeClient()
    assert metadata_for(client) is metadata_for(client)
    assert metadata_for(FakeClient()) is not metadata_for(client)

