"""How `make test`'s parallel workers (pytest-xdist) share out the suite: each test module is
one unit of work, run whole by one worker, so a fixture a module's tests share (module or
session scope: helm's renders of the function cases, a registry, a testbed of the module's
own) is set up once; the release corpus, the longest piece of work, is cut into
CORPUS_PARTS units, each its own suite on its own two testbeds.

(xdist's own `--dist loadgroup` cannot do this with pytest 9: it renames a test's node id
through `item._nodeid`, which pytest 9's nodes no longer read, so its groups come apart.)
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadScopeScheduling

from tests.corpus import chart_names

CORPUS_MODULE = "tests/e2e/test_release_corpus.py"
CORPUS_PARTS = 2


def corpus_part(chart: str) -> int:
    return chart_names().index(chart) % CORPUS_PARTS


class ModuleScheduling(LoadScopeScheduling):
    """xdist's loadscope, with each module one scope (its classes included) and the release
    corpus in CORPUS_PARTS scopes. Larger scopes are handed out first."""

    def _split_scope(self, nodeid: str) -> str:
        module, _, test = nodeid.partition("::")
        if module == CORPUS_MODULE and test.endswith("]"):
            return f"{module}::part-{corpus_part(test[test.index('[') + 1:-1])}"
        return module


def make_scheduler(config: Any, log: Any) -> ModuleScheduling | None:
    """The scheduler for `-n N` without another `--dist` than the default."""
    if config.getvalue("dist") != "load":
        return None
    return ModuleScheduling(config, log)
