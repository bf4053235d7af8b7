from datetime import UTC, datetime

from runner.release.history import attach, entries
from runner.release.record import DEPLOYED, SUPERSEDED, Info, Release
from runner.release.storage import MemoryDriver, Storage


def _record(version: int, status: str, chart_version: str) -> Release:
    return Release(name="app", namespace="ns", version=version, config={"v": version},
                   chart={"metadata": {"name": "demo", "version": chart_version, "apiVersion": "v2"}},
                   info=Info(status=status, first_deployed="2026-01-01T00:00:00Z",
                             last_deployed=f"2026-01-0{version}T00:00:00.5Z"))


class CountingDriver(MemoryDriver):
    def __init__(self) -> None:
        super().__init__()
        self.gets = 0

    def get(self, key):
        self.gets += 1
        return super().get(key)


def test_newest_first_and_only_the_needed_records_are_decoded():
    driver = CountingDriver()
    storage = Storage(driver)
    for version in range(1, 6):
        storage.create(_record(version, SUPERSEDED if version < 5 else DEPLOYED, f"{version}.0.0"), 0)
    driver.gets = 0
    got = entries(storage, "app", 2, include_values=False)
    assert [e["Revision"] for e in got] == [5, 4]
    assert driver.gets == 2
    assert got[0]["Status"] == DEPLOYED and got[0]["Chart"]["Version"] == "5.0.0"
    assert got[0]["Chart"]["Name"] == "demo" and got[0]["Values"] == {}
    assert got[0]["LastDeployed"] == datetime(2026, 1, 5, 0, 0, 0, 500000, tzinfo=UTC)


def test_values_only_with_the_flag_and_deployed_chart_views():
    storage = Storage(MemoryDriver())
    storage.create(_record(1, SUPERSEDED, "1.0.0"), 0)
    storage.create(_record(2, DEPLOYED, "2.0.0"), 0)
    top = {"Release": {"History": []}}
    attach(top, entries(storage, "app", 5, include_values=True))
    assert [e["Values"] for e in top["Release"]["History"]] == [{"v": 2}, {"v": 1}]
    assert top["DeployedChart"]["Version"] == "2.0.0"
    assert [c["Version"] for c in top["DeployedCharts"]] == ["2.0.0", "1.0.0"]


def test_depth_zero_reads_nothing():
    storage = Storage(MemoryDriver())
    assert entries(storage, "app", 0, include_values=True) == []
