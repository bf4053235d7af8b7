"""Concurrent requests, as Helm's batchPerform: objects of one kind at a time
run in parallel, kinds follow each other in install order. Work that Helm does
one object at a time (Update's Visit) runs concurrently too, with what it tells
held and told in the objects' order (`held_each`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import groupby
from typing import TYPE_CHECKING, TypeVar

from runner.kube.resources import Resource

if TYPE_CHECKING:
    from runner.kube.client import KubeClient

T = TypeVar("T")
R = TypeVar("R")
WORKERS = 8


def each(items: Sequence[T], work: Callable[[T], R]) -> list[R]:
    """work(item) for every item concurrently; results in order; the first error raised."""
    if len(items) <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(WORKERS, len(items))) as pool:
        futures = [pool.submit(work, item) for item in items]
        return [future.result() for future in futures]


def held_each(client: KubeClient, items: Sequence[T], work: Callable[[T], R]
              ) -> list[tuple[R, Callable[[], None]]]:
    """work(item) for every item concurrently, each with what it tells through `client`
    held back: (its result, the function that tells what it said), in the items' order."""
    return each(items, lambda item: client.held(lambda: work(item)))


def kind_batches(resources: Sequence[Resource]) -> Iterator[list[Resource]]:
    """Runs of consecutive objects of the same kind (the manifest is in install order)."""
    for _, batch in groupby(resources, key=lambda r: r.kind):
        yield list(batch)
