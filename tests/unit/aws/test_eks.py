"""The EKS login offline: the token as `aws eks get-token` makes it (built here again from
botocore's own signer), its renewal before it expires and after a 401, the one-line
errors, and botocore staying out of every run that uses no EKS cluster."""

from __future__ import annotations

import base64
import datetime
import json
import os
import ssl
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from runner.aws.eks import AwsSession, EksError, EksToken
from runner.kube import credentials as credentials_module
from runner.kube.credentials import Credentials
from runner.kube.kubeconfig import ConnectionConfig

REGION = "eu-west-1"
KEY, SECRET, SESSION_TOKEN = "ASIAEXAMPLEKEY", "example-secret", "example/session+token="
SIGNED_AT = datetime.datetime(2026, 3, 4, 5, 6, 7)


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Credentials in AWS_* variables, nothing of the machine's AWS configuration."""
    for name in [n for n in os.environ if n.startswith("AWS_")]:
        monkeypatch.delenv(name)
    for name, value in {"AWS_ACCESS_KEY_ID": KEY, "AWS_SECRET_ACCESS_KEY": SECRET,
                        "AWS_SESSION_TOKEN": SESSION_TOKEN, "AWS_REGION": REGION, "AWS_CONFIG_FILE": "/dev/null",
                        "AWS_SHARED_CREDENTIALS_FILE": "/dev/null", "AWS_EC2_METADATA_DISABLED": "true"}.items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def signing_clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock (seconds) that both botocore's signer and the credential cache read."""
    import botocore.auth

    clock = [SIGNED_AT.replace(tzinfo=datetime.UTC).timestamp()]
    monkeypatch.setattr(botocore.auth, "get_current_datetime",
                        lambda *a, **k: datetime.datetime.fromtimestamp(clock[0], datetime.UTC).replace(tzinfo=None))
    monkeypatch.setattr(credentials_module, "now", lambda: clock[0])
    return clock


def decode(token: str) -> str:
    encoded = token.removeprefix("k8s-aws-v1.")
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()


def test_the_token_is_the_one_aws_eks_get_token_makes(aws_env, signing_clock):
    from botocore.auth import SigV4QueryAuth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials as AwsCredentials

    # What aws-cli's get-token does, by hand: GetCallerIdentity on the regional endpoint,
    # presigned for 60 s with the cluster's name in the signed x-k8s-aws-id header.
    request = AWSRequest(method="GET", url=f"https://sts.{REGION}.amazonaws.com/?Action=GetCallerIdentity"
                                           "&Version=2011-06-15", headers={"x-k8s-aws-id": "prod"})
    SigV4QueryAuth(AwsCredentials(KEY, SECRET, SESSION_TOKEN), "sts", REGION, expires=60).add_auth(request)
    expected = "k8s-aws-v1." + base64.urlsafe_b64encode(request.url.encode()).decode().rstrip("=")

    token, expires = EksToken(AwsSession(cluster="prod"), "prod").fetch()
    assert token == expected
    assert "=" not in token
    url = urlsplit(decode(token))
    query = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert url.netloc == f"sts.{REGION}.amazonaws.com"
    assert query["X-Amz-SignedHeaders"] == "host;x-k8s-aws-id"
    assert (query["X-Amz-Date"], query["X-Amz-Expires"]) == ("20260304T050607Z", "60")
    assert query["X-Amz-Security-Token"] == SESSION_TOKEN


def test_a_token_is_kept_until_a_minute_before_its_15_minutes_end(aws_env, signing_clock):
    source = EksToken(AwsSession(cluster="prod"), "prod", clock=lambda: signing_clock[0])
    creds = Credentials(ConnectionConfig(server="https://k:443", token_source=source))

    def signed_at() -> str:
        (name, value), = creds.headers()
        assert name == "Authorization" and value.startswith("Bearer k8s-aws-v1.")
        return parse_qs(urlsplit(decode(value.removeprefix("Bearer "))).query)["X-Amz-Date"][0]

    assert signed_at() == "20260304T050607Z"
    signing_clock[0] += 13 * 60 + 59
    assert signed_at() == "20260304T050607Z"  # still good for a minute and more
    signing_clock[0] += 1
    assert signed_at() == "20260304T052007Z"  # 14 minutes: a new one
    signing_clock[0] += 5
    assert signed_at() == "20260304T052007Z"
    assert creds.unauthorized() is True  # a 401: the next request gets a new token
    assert signed_at() == "20260304T052012Z"


class _Reviewer(BaseHTTPRequestHandler):
    """An API server that takes one bearer token (`accepted`) and records each one seen."""

    accepted = ""
    seen: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        self.seen.append(token)
        ok = token == self.accepted
        body = json.dumps({"kind": "Namespace"} if ok else {
            "kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "Unauthorized",
            "reason": "Unauthorized", "code": 401}).encode()
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def api_server(tmp_path):
    from testbed.pki import create_pki

    pki = create_pki(tmp_path / "pki")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Reviewer)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(pki.apiserver.cert), str(pki.apiserver.key))
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    _Reviewer.seen = []
    yield f"https://127.0.0.1:{httpd.server_address[1]}", pki.ca.cert.read_bytes()
    httpd.shutdown()
    httpd.server_close()


class Tokens:
    """A token source giving token-1, token-2, ... each for an hour."""

    def __init__(self) -> None:
        self.made = 0

    def fetch(self) -> tuple[str, float]:
        self.made += 1
        return f"token-{self.made}", credentials_module.now() + 3600

    def refused(self) -> str:
        return 'the API server refused the EKS token for cluster "prod"'


def test_a_401_renews_the_token_and_sends_the_request_once_more(api_server):
    from runner.kube.transport import Transport

    server, ca = api_server
    tokens = Tokens()
    transport = Transport(ConnectionConfig(server=server, ca_data=ca, token_source=tokens))
    _Reviewer.accepted = "token-2"  # the first one was revoked early
    assert transport.request("GET", "/api/v1/namespaces/x", [], {}, None).status == 200
    assert _Reviewer.seen == ["token-1", "token-2"]
    assert transport.request("GET", "/api/v1/namespaces/x", [], {}, None).status == 200
    assert _Reviewer.seen[2:] == ["token-2"]  # kept while it works

    _Reviewer.accepted = "no token of ours"
    reply = transport.request("GET", "/api/v1/namespaces/x", [], {}, None)
    assert reply.status == 401
    assert _Reviewer.seen[3:] == ["token-2", "token-3"]  # renewed once, then the answer stands
    assert json.loads(reply.data)["message"] == (
        'Unauthorized: the API server refused the EKS token for cluster "prod"')


def test_a_static_token_is_not_sent_again_after_a_401(api_server):
    from runner.kube.transport import Transport

    server, ca = api_server
    _Reviewer.accepted = "other"
    reply = Transport(ConnectionConfig(server=server, ca_data=ca, token="mine")).request(
        "GET", "/api/v1/namespaces/x", [], {}, None)
    assert (reply.status, _Reviewer.seen, json.loads(reply.data)["message"]) == (401, ["mine"], "Unauthorized")


def test_describe_cluster_refusals_are_one_line(aws_env):
    from botocore.stub import Stubber

    aws = AwsSession(cluster="prod")
    message = ("User: arn:aws:iam::123456789012:user/ci is not authorized to perform: eks:DescribeCluster on "
               "resource: arn:aws:eks:eu-west-1:123456789012:cluster/prod")
    with Stubber(aws.client("eks")) as stub:
        stub.add_client_error("describe_cluster", "AccessDeniedException", message, 403)
        with pytest.raises(EksError) as denied:
            aws.describe_cluster("prod")
        stub.add_client_error("describe_cluster", "ResourceNotFoundException", "No cluster found for name: prod.", 404)
        with pytest.raises(EksError) as missing:
            aws.describe_cluster("prod")
    assert str(denied.value) == (f'EKS cluster "prod" (eu-west-1): eks:DescribeCluster was refused: '
                                 f"AccessDeniedException: {message}")
    assert str(missing.value) == ('EKS cluster "prod" (eu-west-1): no such cluster in eu-west-1 '
                                  "(eks:DescribeCluster: ResourceNotFoundException: No cluster found for name: prod.)")


def test_missing_region_and_credentials_are_one_line(aws_env, monkeypatch):
    monkeypatch.delenv("AWS_REGION")
    with pytest.raises(EksError, match=r'^EKS cluster "prod": no AWS region: give --eks-region'):
        AwsSession(cluster="prod")
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name)
    with pytest.raises(EksError, match=r'^EKS cluster "prod" \(us-east-2\): no AWS credentials found \('):
        AwsSession("us-east-2", cluster="prod")


def test_without_the_aws_extra_the_error_says_which_to_install():
    code = ("import sys; sys.modules['botocore'] = None; from runner.cli import main; "
            "sys.exit(main(['list', '--eks-cluster', 'prod']))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (1, (
        "Error: kubernetes cluster unreachable: EKS login needs the AWS SDK (botocore), which is not installed: "
        "pip install 'deploy-runner[aws]'\n"))


def test_commands_without_an_eks_cluster_never_import_the_aws_sdk(tmp_path: Path):
    chart = tmp_path / "c"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text("kind: ConfigMap\n")
    for args in (["template", "r", str(chart)], ["list", "--kubeconfig", "/nonexistent"],
                 ["install", "r", str(chart), "--kubeconfig", "/nonexistent"]):
        code = (f"import sys; from runner.cli import main; main({args!r}); "
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('boto3', 'botocore', 'runner')"
                " and (m.startswith('runner.aws') or not m.startswith('runner'))), file=sys.stderr)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
        assert done.stderr.splitlines()[-1] == "[]", (args, done.stderr)


def test_a_profile_that_does_not_exist_is_one_line(aws_env, monkeypatch):
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.setenv("AWS_PROFILE", "nowhere")
    with pytest.raises(EksError) as missing:
        AwsSession(cluster="prod")
    assert str(missing.value) == ('EKS cluster "prod": the AWS configuration: The config profile (nowhere) '
                                  "could not be found")
