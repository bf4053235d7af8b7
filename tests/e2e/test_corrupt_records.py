"""Damaged release records on the testbed: every kind of damage x every command, against helm.

Records are written by the helm binary (r1 at revisions 1-3, r2 at 1), then
one Secret is overwritten: the newest revision of r1, its oldest, or r2's
only one. Where Helm passes over a record it cannot decode (list, history,
status, get without --revision) we print what Helm prints; where Helm
fails, our error is Helm's or names the record and what is wrong; where
Helm panics (a record without info) we pass over it too. Never an internal
error, never a change to a readable record by a command that failed.

The full profile of the reliability campaign (RELIABILITY=full, `make reliability`)
adds reads (get hooks/metadata, status --revision, history -o json, list -a) and
writes (upgrade --install, install over the name, test), and runs every write
against every kind of damage.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.release_helpers import ours
from tests.fixtures import write_chart
from tests.reliability.campaign import FULL

pytestmark = pytest.mark.e2e

TEMPLATES = {
    "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
               "data:\n  m: {{ .Values.message | quote }}\n",
    "NOTES.txt": "notes {{ .Release.Name }}\n",
}


def _gzip_bomb(mebibytes: int) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9) as out:
        chunk = b"\0" * (1 << 20)
        for _ in range(mebibytes):
            out.write(chunk)
    return buf.getvalue()


def _json(release: dict[str, Any], **changes: Any) -> bytes:
    return gzip.compress(json.dumps({**release, **changes}).encode())


# kind -> the new Helm-level record (the bytes helm base64s) from the stored JSON
DAMAGE: dict[str, Callable[[dict[str, Any]], bytes]] = {
    "bad base64": lambda r: b"!!!not base64!!!",
    "bad gzip": lambda r: base64.b64encode(b"\x1f\x8b\x08" + b"\x00" * 20),
    "gzip bomb": lambda r: base64.b64encode(_gzip_bomb(80)),
    "json list": lambda r: base64.b64encode(gzip.compress(b"[1,2,3]")),
    "not json": lambda r: base64.b64encode(gzip.compress(b"hello")),
    "empty": lambda r: b"",
    "NaN": lambda r: base64.b64encode(gzip.compress(json.dumps(r)[:-1].encode() + b',"x":NaN}')),
    "deep nesting": lambda r: base64.b64encode(gzip.compress(
        b'{"name":"x","config":' + b'{"a":' * 20000 + b"1" + b"}" * 20001)),
    "missing fields": lambda r: base64.b64encode(gzip.compress(json.dumps({"name": r["name"]}).encode())),
    "empty object": lambda r: base64.b64encode(gzip.compress(b"{}")),
    "wrong type: version": lambda r: base64.b64encode(_json(r, version="three")),
    "wrong type: info": lambda r: base64.b64encode(_json(r, info="deployed")),
    "wrong type: config": lambda r: base64.b64encode(_json(r, config=[1])),
    "wrong type: chart": lambda r: base64.b64encode(_json(r, chart=1)),
    "wrong type: time": lambda r: base64.b64encode(
        _json(r, info={**r["info"], "last_deployed": "yesterday"})),
    "uncompressed (valid)": lambda r: base64.b64encode(json.dumps(r).encode()),
    "invalid UTF-8 (valid)": lambda r: base64.b64encode(gzip.compress(
        json.dumps({**r, "info": {**r["info"], "notes": "MARK"}}).encode()
        .replace(b"MARK", b"\xff\xfe"))),
}
# Go's own words for these; for the others (a flate offset, a gzip bomb Helm reads whole
# before the JSON fails), ours name the record and the damage in our words.
SAME_WORDS = {"bad base64", "json list", "not json", "empty", "NaN", "deep nesting",
              *(kind for kind in DAMAGE if kind.startswith("wrong type"))}
# Helm reads these but then dereferences a nil Info and panics: we pass over them.
HELM_PANICS = {"missing fields", "empty object"}
TARGETS = {"newest": ("r1", 3), "oldest": ("r1", 1), "only": ("r2", 1)}
READS = (
    ("list",),
    ("history", "{name}"),
    ("status", "{name}"),
    ("get", "values", "{name}"),
    ("get", "all", "{name}"),
    ("get", "values", "{name}", "--revision", "{version}"),
    ("get", "manifest", "{name}", "--revision", "{version}"),
    ("get", "notes", "{name}", "--revision", "1"),
) + ((
    ("get", "hooks", "{name}"),
    ("get", "metadata", "{name}"),
    ("status", "{name}", "--revision", "{version}"),
    ("history", "{name}", "-o", "json"),
    ("list", "-a"),
) if FULL else ())
WRITES = (
    ("upgrade", "{name}", "{chart}", "--set", "message=next"),
    ("rollback", "{name}", "1"),
    ("uninstall", "{name}"),
) + ((
    ("upgrade", "{name}", "{chart}", "--install", "--set", "message=next"),
    ("install", "{name}", "{chart}"),
    ("test", "{name}"),
) if FULL else ())
WRITE_KINDS = list(DAMAGE) if FULL else ["json list", "wrong type: version", "missing fields", "gzip bomb"]

STATS = {"damaged records": 0, "command runs": 0}


@pytest.fixture(scope="module")
def chart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_chart(tmp_path_factory.mktemp("corrupt"), name="rc", templates=TEMPLATES)


@pytest.fixture
def make_namespace(cluster: Any) -> Any:
    from kubernetes import client

    core = client.CoreV1Api(cluster.api_client)
    made: list[str] = []

    def make() -> str:
        name = f"corrupt-{uuid.uuid4().hex[:10]}"
        core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=name)))
        made.append(name)
        return name

    yield make
    for name in made:
        core.delete_namespace(name)


def _releases(helm: Any, chart: Path, namespace: str) -> None:
    for args in (("install", "r1"), ("upgrade", "r1", "--set", "message=two"),
                 ("upgrade", "r1", "--set", "message=three"), ("install", "r2")):
        proc = helm(*args[:2], str(chart), *args[2:], "-n", namespace)
        assert proc.returncode == 0, proc.stderr


def _damage(cluster: Any, namespace: str, key: str, kind: str) -> None:
    from kubernetes import client

    core = client.CoreV1Api(cluster.api_client)
    secret = core.read_namespaced_secret(key, namespace)
    stored = base64.b64decode(secret.data["release"])
    release = json.loads(gzip.decompress(base64.b64decode(stored)))
    secret.data["release"] = base64.b64encode(DAMAGE[kind](release)).decode()
    core.replace_namespaced_secret(key, namespace, secret)
    STATS["damaged records"] += 1


def _secrets(cluster: Any, namespace: str) -> dict[str, str]:
    from kubernetes import client

    items = client.CoreV1Api(cluster.api_client).list_namespaced_secret(namespace).items
    return {s.metadata.name: s.data["release"] for s in items if s.type == "helm.sh/release.v1"}


def _argv(template: tuple[str, ...], name: str, version: int, chart: Path) -> list[str]:
    return [part.format(name=name, version=version, chart=chart) for part in template]


def _without_ages(text: str) -> str:
    """`status` lists live objects with their AGE, which moves between the two runs."""
    return re.sub(r"\s+\d+[smhd](\d+[sm])?$", "", text, flags=re.M)


@pytest.mark.parametrize("kind", DAMAGE)
def test_reads_pass_over_or_name_the_damaged_record(kind, cluster, helm, chart, make_namespace):
    for target, (name, version) in TARGETS.items():
        namespace = make_namespace()
        _releases(helm, chart, namespace)
        key = f"sh.helm.release.v1.{name}.v{version}"
        _damage(cluster, namespace, key, kind)
        for template in READS:
            argv = _argv(template, name, version, chart)
            theirs = helm(*argv, "-n", namespace)
            mine = ours(cluster, namespace, *argv)
            STATS["command runs"] += 2
            where = f"{kind} @ {target}: {' '.join(argv)}"
            assert "internal error" not in mine.err and "Traceback" not in mine.err, where
            if kind in HELM_PANICS and mine.code != 0:
                # Helm reads the record (empty), or crashes on it; we refuse it, by name
                assert mine.err in (f'Error: no revision for release "{name}"\n',
                                    f'Error: get: failed to decode data "{key}": '
                                    f"{mine.err.split(': ', 3)[-1]}"), where
                assert key in mine.err or "no revision" in mine.err, where
            elif kind in HELM_PANICS and "panic:" in theirs.stderr:
                assert mine.code == 0, where  # Helm crashed; we passed over the record
            elif theirs.returncode == 0:
                assert (mine.code, _without_ages(mine.out)) == (0, _without_ages(theirs.stdout)), where
            else:
                assert mine.code == theirs.returncode, (where, mine.err, theirs.stderr)
                if key in theirs.stderr and kind not in SAME_WORDS:
                    assert f'get: failed to decode data "{key}": ' in mine.err, where
                else:
                    assert mine.err == theirs.stderr, where


@pytest.mark.parametrize("kind", WRITE_KINDS)
@pytest.mark.parametrize("target", ["newest", "oldest"])
def test_writes_refuse_or_act_without_losing_a_readable_record(kind, target, cluster, helm, chart,
                                                                make_namespace):
    name, version = TARGETS[target]
    key = f"sh.helm.release.v1.{name}.v{version}"
    for template in WRITES:
        namespace = make_namespace()
        _releases(helm, chart, namespace)
        _damage(cluster, namespace, key, kind)
        before = _secrets(cluster, namespace)
        argv = _argv(template, name, version, chart)
        mine = ours(cluster, namespace, *argv)
        STATS["command runs"] += 1
        after = _secrets(cluster, namespace)
        where = f"{kind} @ {target}: {' '.join(argv)}"
        assert "internal error" not in mine.err, where
        if mine.code != 0:
            if key not in mine.err:  # refused for another reason: Helm's refusal, word for word
                theirs = _twin(cluster, helm, chart, make_namespace, key, kind, argv)
                # (Helm's log lines before it, `level=ERROR msg=...`: p2-cancel's --debug work)
                assert mine.err == _without_log_lines(theirs.stderr), (where, mine.err, theirs.stderr)
            assert after == before, where  # a failed command changed nothing
        elif argv[0] == "uninstall":
            assert not any(k.startswith(f"sh.helm.release.v1.{name}.") for k in after), where
        else:  # nothing went away, a new revision on top, an unreadable record left as it was
            assert set(before) <= set(after), where
            assert argv[0] == "test" or set(before) < set(after), where
            assert "(valid)" in kind or after[key] == before[key], where  # a valid one is superseded
        # what Helm does with the same damage, for the record of the comparison (Helm trips
        # over a record without info: it panics reading one, or fails to purge it)
        if target == "oldest" and kind not in HELM_PANICS:
            theirs = _twin(cluster, helm, chart, make_namespace, key, kind, argv)
            assert (theirs.returncode == 0) == (mine.code == 0), where


def _without_log_lines(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("level="))


def _twin(cluster: Any, helm: Any, chart: Path, make_namespace: Any, key: str, kind: str,
          argv: list[str]) -> Any:
    """Helm's run of `argv` on the same releases with the same damage, in a namespace of its own."""
    twin = make_namespace()
    _releases(helm, chart, twin)
    _damage(cluster, twin, key, kind)
    return helm(*argv, "-n", twin)


def test_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """The campaign's counts, printed for the report (-s shows them)."""
    with capsys.disabled():
        print(f"\ncorrupt records: {STATS}")


@pytest.mark.parametrize("value", ["y=NaN", "y=1e999", "y=-Infinity", '{"y": NaN}'])
def test_values_helm_could_not_read_back_never_reach_a_record(value, cluster, helm, chart, namespace):
    """`--set-json y=NaN` was stored, and Helm then found no revision of the release."""
    mine = ours(cluster, namespace, "install", "nan", str(chart), "--set-json", value)
    theirs = helm("install", "nan", str(chart), "--set-json", value, "-n", namespace)
    assert (mine.code, mine.err) == (theirs.returncode, theirs.stderr)
    assert _secrets(cluster, namespace) == {}
