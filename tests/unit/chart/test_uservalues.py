"""-f and the --set family: results and errors compared with Helm 4.1.4 on a scratch chart."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner.chart.errors import ValuesError
from runner.chart.strvals import parse, typed_value
from runner.chart.uservalues import merge_user_values
from runner.encoding.gojson import marshal
from runner.golang.types import Int64, go_type_name
from tests.unit.chart._helm import helm_template, write_chart

# `.Values` as JSON, then the Go type of every top-level value.
DUMP = "v: {{ .Values | toJson }}\nt: {{ range $k, $v := .Values }}{{ $k }}={{ typeOf $v }};{{ end }}\n"


@pytest.fixture(scope="module")
def dump_chart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_chart(tmp_path_factory.mktemp("uv") / "uv", {"templates/dump.yaml": DUMP})


def _ours(values: dict) -> str:
    types = "".join(f"{k}={go_type_name(values[k])};" for k in sorted(values))
    return f"v: {marshal(values)}\nt: {types}"


SET_CASES = [
    ["--set", "name1=value1,name2=value2"],
    ["--set", "a=1,b=-2,c=0,d=007,e=1.5,f=9223372036854775808,g=+3"],
    ["--set", "t=true,f=FALSE,n=null,N=Null"],
    ["--set", "a.b.c=1,a.b.d=x,a.e=y"],
    ["--set", "list[0]=a,list[2]=c"],
    ["--set", "list[0].name=x,list[1].name=y,list[0].v=1"],
    ["--set", "nested[0][1]=x"],
    ["--set", "name={a,b,c}"],
    ["--set", "name={},other={x}"],
    ["--set", "esc=one\\,two,eq=a\\=b,dot=a\\.b"],
    ["--set", "a.b\\.c=1"],
    ["--set", "empty="],
    ["--set", "a=1", "--set", "a=2,b=3"],
    ["--set-string", "a=1,b=true,c=null"],
    ["--set-json", 'a={"x":[1,2,{"y":null}]},b=3,c="s",d=', "--set", "e=1"],
    ["--set-json", '{"top": {"k": 1}, "n": 2}'],
    ["--set-literal", "a=x,y={z}\\n"],
    ["--set", "a=1", "--set-string", "a=2"],
    ["--set-string", "a=1", "--set", "a=2"],
    ["--set", "a=x", "--set-literal", "a=lit,eral", "--set-string", "a=s"],
    ["--set", "a=x", "--set-json", "a=1"],
    ["--set", "a[1]=x,a[0].b=y"],
    ["--set", "nested[1][1]=1,nested[0][0]=0"],
    ["--set", "a.b=1,a=2"],
    ["--set", "list[0]=a,list[0]=b"],
    ["--set-json", 'a[0]={"x":1},a[2]=[true]'],
    ["--set-literal", "a[0]=x,y"],
    ["--set", "a= b ,c=\\{d}"],
    ["--set", "a=1.0,b=-0,c=9223372036854775807,d=1_000,e=0x10,f=+5"],
    ["--set", "a=true,b=True,c=TRUE,d=yes"],
    ["--set", "a.b.c.d.e=1,a.b.x=2"],
    ["--set", "a]=1,b}=2"],
]


def _sets(args: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    files: list[str] = []
    sets: dict[str, list[str]] = {}
    for flag, value in zip(args[::2], args[1::2], strict=True):
        if flag == "-f":
            files.append(value)
        else:
            sets.setdefault(flag.removeprefix("--"), []).append(value)
    return files, sets


@pytest.mark.parametrize("args", SET_CASES, ids=[" ".join(a) for a in SET_CASES])
def test_set_family_matches_helm(dump_chart: Path, args: list[str]) -> None:
    helm = helm_template(dump_chart, *args)
    assert helm.returncode == 0, helm.stderr
    files, sets = _sets(args)
    assert _ours(merge_user_values(files, sets)) == helm.document("templates/dump.yaml")


ERROR_CASES = [
    ["--set", "a"],
    ["--set", "a.b"],
    ["--set", "a,"],
    ["--set", "a[x]=1"],
    ["--set", "a=1,a[0]=2"],
    ["--set", "a[0]=1,a.b=2"],
    ["--set", "a[70000]=1"],
    ["--set", "a[-1]=1"],
    ["--set", "a={x"],
    ["--set-json", "a=x"],
    ["--set-json", "{x"],
    ["--set-file", "a=/nonexistent/file"],
    ["-f", "/nonexistent/values.yaml"],
    ["--set", "a=2,a.b=1"],
    ["--set", "a[0]=1,a[0][0]=2"],
    ["--set", "a={1,{2},3}"],
    ["--set", "a[0]x=1"],
    ["--set", "a[0]xy'=1"],
]


@pytest.mark.parametrize("args", ERROR_CASES, ids=[" ".join(a) for a in ERROR_CASES])
def test_set_family_errors_match_helm(dump_chart: Path, args: list[str]) -> None:
    helm = helm_template(dump_chart, *args)
    assert helm.returncode != 0
    files, sets = _sets(args)
    with pytest.raises(ValuesError) as caught:
        merge_user_values(files, sets)
    assert str(caught.value) == helm.error


def test_values_files_merge_in_order_then_sets_win(dump_chart: Path, tmp_path: Path) -> None:
    first = tmp_path / "one.yaml"
    first.write_text("a: 1\nm: {x: 1, y: 1}\nl: [1, 2]\n---\nb: 2\n")
    second = tmp_path / "two.yaml"
    second.write_text("m: {y: 2}\nl: [3]\nc: y\n")
    args = ["-f", str(first), "-f", str(second), "--set", "m.z=3"]
    helm = helm_template(dump_chart, *args)
    files, sets = _sets(args)
    assert _ours(merge_user_values(files, sets)) == helm.document("templates/dump.yaml")


@pytest.mark.parametrize("name", ["bad.yaml", "list.yaml"])
def test_values_file_parse_errors_match_helm(dump_chart: Path, tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_text("a: [" if name == "bad.yaml" else "- 1\n")
    helm = helm_template(dump_chart, "-f", str(path))
    with pytest.raises(ValuesError) as caught:
        merge_user_values([str(path)], {})
    assert str(caught.value) == helm.error


def test_set_file_reads_the_file_as_a_string(dump_chart: Path, tmp_path: Path) -> None:
    path = tmp_path / "cert.pem"
    path.write_text("line1\nline2\n")
    helm = helm_template(dump_chart, "--set-file", f"cert={path}")
    assert _ours(merge_user_values([], {"set-file": [f"cert={path}"]})) == helm.document(
        "templates/dump.yaml"
    )


def test_typed_values_follow_strvals_typedval() -> None:
    # pkg/strvals typedVal: int64 only without a leading zero; case-insensitive literals.
    assert typed_value("123") == 123 and type(typed_value("123")) is Int64
    assert typed_value("0") == 0 and type(typed_value("0")) is Int64
    assert typed_value("0123") == "0123"
    assert typed_value("TRUE") is True
    assert typed_value("nUll") is None
    assert typed_value("1e3") == "1e3"
    assert parse("a=1", mode="string") == {"a": "1"}


def test_values_file_from_an_http_url(dump_chart: Path, tmp_path: Path) -> None:
    import functools
    import http.server
    import threading

    (tmp_path / "remote.yaml").write_text("remote: {a: 1}\n")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/remote.yaml"
        helm = helm_template(dump_chart, "-f", url)
        assert _ours(merge_user_values([url], {})) == helm.document("templates/dump.yaml")
    finally:
        server.shutdown()
        server.server_close()


def test_unknown_url_scheme_is_read_as_a_file_path(dump_chart: Path) -> None:
    helm = helm_template(dump_chart, "-f", "foo://x")
    with pytest.raises(ValuesError) as caught:
        merge_user_values(["foo://x"], {})
    assert str(caught.value) == helm.error


def test_secret_values_files_merge_after_the_values_files_and_are_collected(tmp_path: Path) -> None:
    plain, secret, cert = tmp_path / "plain.yaml", tmp_path / "secret.yaml", tmp_path / "tls.crt"
    plain.write_text("db: {host: db, password: placeholder}\n")
    secret.write_text("db: {password: s3cret-pw}\n")
    cert.write_text("-----BEGIN CERTIFICATE-----\n")
    secrets: list = []

    values = merge_user_values([str(plain)], {"secret-values": [str(secret)], "set-file": [f"tls={cert}"],
                                              "set": ["db.host=other"]}, secrets=secrets)

    assert values == {"db": {"host": "other", "password": "s3cret-pw"}, "tls": "-----BEGIN CERTIFICATE-----\n"}
    assert secrets == [{"db": {"password": "s3cret-pw"}}, "-----BEGIN CERTIFICATE-----\n"]
