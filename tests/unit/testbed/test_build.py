"""Pinned versions and the binary cache key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from testbed import build


def test_every_staging_module_is_pinned_to_the_kubernetes_release() -> None:
    k8s = build.pinned_versions()["k8s.io/kubernetes"]
    expected = "v0." + k8s.removeprefix("v1.")  # v1.35.4 <-> v0.35.4
    gomod = (build.GO_MODULES_DIR / "k8s" / "go.mod").read_text()
    replaced = dict(re.findall(r"^\s*(k8s\.io/\S+) => \1 (v\S+)$", gomod, re.M))

    assert "k8s.io/api" in replaced and "k8s.io/apiserver" in replaced
    assert set(replaced.values()) == {expected}


def test_cache_key_changes_with_every_version_and_the_go_toolchain() -> None:
    versions = build.pinned_versions()
    key = build.cache_key(versions, "go1.26.8")

    for module, version in versions.items():
        bumped = {**versions, module: version + "-next"}
        assert build.cache_key(bumped, "go1.26.8") != key
    assert build.cache_key(versions, "go1.27.0") != key
    assert "go1.26.8" in key and versions["k8s.io/kubernetes"] in key


def test_cache_is_used_without_building(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(build, "go_version", lambda: "go1.26.8")
    target = build.cache_root() / build.cache_key(build.pinned_versions(), "go1.26.8")
    target.mkdir(parents=True)
    for name in build.BINARY_NAMES:
        (target / name).write_text("#!/bin/sh\n")

    def no_build(*args: object) -> None:
        raise AssertionError("a complete cache entry must not be rebuilt")

    provisioner = build.go_tool_path("provisioner", build.PROVISIONER_MODULE, build.PROVISIONER)
    provisioner.parent.mkdir(parents=True)
    provisioner.write_text("#!/bin/sh\n")
    monkeypatch.setattr(build, "_build_into", no_build)
    monkeypatch.setattr(build, "_go_build", no_build)
    binaries = build.ensure_binaries(log=lambda message: None)

    assert binaries.directory == target
    assert binaries.path("kube-apiserver") == target / "kube-apiserver"
    assert binaries.path("hostpath-provisioner") == provisioner
    assert binaries.versions["go"] == "go1.26.8"
    assert binaries.versions[build.PROVISIONER_MODULE].startswith("v13.")


def test_kubernetes_is_stamped_where_its_own_build_stamps_it() -> None:
    flags = build.k8s_version_flags("v1.35.4", "2026-04-15T18:01:22.250Z")
    for package in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        assert [f for f in flags if f.startswith(f"-X {package}.")] == [
            f"-X {package}.gitVersion=v1.35.4", f"-X {package}.gitMajor=1",
            f"-X {package}.gitMinor=35", f"-X {package}.buildDate=2026-04-15T18:01:22Z"]


def test_a_new_build_recipe_makes_a_new_cache_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # Binaries cached by an older recipe (unstamped ones) must not be reused.
    versions = build.pinned_versions()
    key = build.cache_key(versions, "go1.26.8")
    monkeypatch.setattr(build, "BUILD_RECIPE", "r-next")
    assert build.cache_key(versions, "go1.26.8") != key


def test_a_go_tool_is_built_once_under_its_own_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(build, "go_version", lambda: "go1.26.8")
    builds: list[str] = []

    def fake_go_build(module_dir: Path, packages: tuple[str, ...], out: Path, name: str,
                      stamp: list[str]) -> None:
        builds.append(packages[0])
        (out / "helm-diff").write_text("#!/bin/sh\n")  # go names it after the package

    monkeypatch.setattr(build, "_go_build", fake_go_build)
    module = "github.com/databus23/helm-diff/v3"
    first = build.go_tool("helm-diff", module, module, "diff", log=lambda message: None)
    again = build.go_tool("helm-diff", module, module, "diff", log=lambda message: None)

    version = build._required_version("helm-diff", module)
    assert first == again == build.cache_root() / f"helm-diff-{version}_go1.26.8" / "diff"
    assert first.is_file() and builds == [module]
    assert [p.name for p in first.parent.iterdir()] == ["diff"]


def test_a_go_tool_with_source_of_its_own_is_built_again_when_the_source_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    modules = tmp_path / "testbed"
    (modules / "provisioner").mkdir(parents=True)
    for name in ("go.mod", "main.go"):
        source = build.GO_MODULES_DIR / "provisioner" / name
        (modules / "provisioner" / name).write_bytes(source.read_bytes())
    monkeypatch.setattr(build, "GO_MODULES_DIR", modules)
    monkeypatch.setattr(build, "go_version", lambda: "go1.26.8")
    before = build.go_tool_path("provisioner", build.PROVISIONER_MODULE, build.PROVISIONER)

    with open(modules / "provisioner" / "main.go", "a") as main:
        main.write("\n// changed\n")
    after = build.go_tool_path("provisioner", build.PROVISIONER_MODULE, build.PROVISIONER)

    assert before != after and before.name == after.name == "hostpath-provisioner"
