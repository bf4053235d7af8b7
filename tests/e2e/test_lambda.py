"""The Lambda function as Lambda runs it: the zip `make lambda-zip` builds, unpacked and run
by the AWS Lambda Runtime Interface Emulator with awslambdaric on a clean Python of the
runtime's version (3.12 when the machine has one), only /tmp writable
(testbed.lambda_runtime); events POSTed to its invoke endpoint in AWS's shapes.

AWS is moto in server mode (S3, STS, EKS, ECR, SSM, Secrets Manager, SQS's message
shape); the cluster is the testbed reached as EKS cluster `testbed` through its token
webhook (the `eks` fixture), or through a kubeconfig kept in Secrets Manager; ECR's
registry is the tests' OCI registry, where charts are pushed by Helm 4.1.4.

What each test prints (pytest -s) are the measurements of docs/lambda.md: the cold start
to the first byte of the answer, a warm invocation, event-to-deployed.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.release_helpers import config
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

REPOSITORY = Path(__file__).resolve().parents[2]
CONFIGMAP = {"cm.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
data:
  message: {{ .Values.message | quote }}
  version: {{ .Chart.Version | quote }}
"""}
NEVER_READY = {"deploy.yaml": """apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-stuck
spec:
  replicas: 1
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      nodeSelector: {no-such-node: "true"}
      containers: [{name: c, image: busybox}]
"""}


# -- the function ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def runtime() -> tuple[str, str]:
    """(the Lambda runtime's python with awslambdaric, its version)."""
    from testbed.lambda_runtime import runtime_environment, runtime_python

    python, version = runtime_python()
    print(f"\nthe Lambda runtime: Python {version} ({python})")
    return str(runtime_environment(python, version)), version


@pytest.fixture(scope="module")
def task_dir(runtime: tuple[str, str], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The zip of lambda/build.py (as `make lambda-zip` builds it) for this machine's
    architecture and the runtime's Python, unpacked outside /tmp (the function's /tmp is
    its own)."""
    import platform

    from testbed.build import cache_root

    python, version = runtime
    out = tmp_path_factory.mktemp("lambda-zip")
    arch = "arm64" if platform.machine() in ("aarch64", "arm64") else "x86_64"
    subprocess.run([sys.executable, str(REPOSITORY / "lambda" / "build.py"), "--arch", arch,
                    "--python-version", version, "--compile-with", python, "--out", str(out)], check=True)
    built = out / f"deploy-runner-lambda-{version}-{arch}.zip"
    unpacked = cache_root() / f"lambda-task-{uuid.uuid4().hex[:8]}"
    with zipfile.ZipFile(built) as archive:
        archive.extractall(unpacked)
    try:
        yield unpacked
    finally:
        shutil.rmtree(unpacked, ignore_errors=True)


class Function:
    """Starts the function with a configuration; each started one is stopped at the end."""

    def __init__(self, task_dir: Path, python: str, aws: Any, keys: Any, tmp_path: Path) -> None:
        self.task_dir, self.python, self.aws, self.keys, self.tmp_path = task_dir, python, aws, keys, tmp_path
        self.started: list[Any] = []

    def start(self, timeout: int = 120, **env: str) -> Any:
        from testbed.lambda_runtime import LambdaFunction

        variables = {**self.aws.environment(self.keys), "DEPLOY_RUNNER_EKS_CLUSTER": "testbed", **env}
        function = LambdaFunction.start(self.task_dir, self.python, env=variables, timeout=timeout,
                                        log_path=self.tmp_path / f"lambda-{len(self.started)}.log")
        self.started.append(function)
        return function

    def stop(self) -> None:
        for function in self.started:
            function.stop()


@pytest.fixture
def function(task_dir: Path, runtime: tuple[str, str], eks: Any, tmp_path: Path) -> Iterator[Function]:
    keys = eks.identity("lambda")
    starter = Function(task_dir, runtime[0], eks.aws, keys, tmp_path)
    try:
        yield starter
    finally:
        starter.stop()


# -- AWS's parts ------------------------------------------------------------------------------

@pytest.fixture
def bucket(eks: Any) -> str:
    from testbed.aws import REGION

    name = f"charts-{uuid.uuid4().hex[:10]}"
    eks.aws.client("s3").create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": REGION})
    return name


def put(eks: Any, bucket: str, key: str, data: bytes | str) -> None:
    eks.aws.client("s3").put_object(Bucket=bucket, Key=key, Body=data.encode() if isinstance(data, str) else data)


def package(helm: Any, tmp_path: Path, name: str, version: str, templates: dict[str, str] = CONFIGMAP,
            values: str = "message: hello\n") -> Path:
    chart = write_chart(tmp_path / "charts", name, version, templates=templates, values=values)
    out = tmp_path / "packages"
    result = helm("package", str(chart), "-d", str(out))
    assert result.returncode == 0, result.stderr
    return out / f"{name}-{version}.tgz"


def s3_event(bucket: str, key: str, name: str = "ObjectCreated:Put") -> dict[str, Any]:
    """An S3 notification as S3 sends it (CONTRACTS.md 3.1): the key form-encoded."""
    from urllib.parse import quote_plus

    from testbed.aws import REGION

    return {"Records": [{
        "eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": REGION,
        "eventTime": "2026-05-04T10:00:00.000Z", "eventName": name,
        "userIdentity": {"principalId": "AWS:AIDAEXAMPLE"}, "requestParameters": {"sourceIPAddress": "127.0.0.1"},
        "responseElements": {"x-amz-request-id": "C3D13FE58DE4C810", "x-amz-id-2": "FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG"},
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "charts",
               "bucket": {"name": bucket, "ownerIdentity": {"principalId": "A3NL1KOZZKExample"},
                          "arn": f"arn:aws:s3:::{bucket}"},
               "object": {"key": quote_plus(key, safe="/"), "size": 1024, "eTag": "d41d8cd98f00b204e9800998ecf8427e",
                          "sequencer": "0A1B2C3D4E5F678901"}}}]}


def sqs_event(aws: Any, *bodies: str) -> tuple[dict[str, Any], list[str]]:
    """The bodies sent to an SQS queue (moto's) and received as Lambda's event source mapping
    receives them, in the event it delivers; (event, message ids in the bodies' order)."""
    from testbed.aws import REGION

    sqs = aws.client("sqs")
    queue = sqs.create_queue(QueueName=f"chart-pushes-{uuid.uuid4().hex[:8]}")["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sent = [sqs.send_message(QueueUrl=queue, MessageBody=body)["MessageId"] for body in bodies]
    received: dict[str, dict[str, Any]] = {}
    while len(received) < len(bodies):
        for message in sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10,
                                           AttributeNames=["All"]).get("Messages", []):
            received[message["MessageId"]] = message
    return {"Records": [{
        "messageId": m["MessageId"], "receiptHandle": m["ReceiptHandle"], "body": m["Body"],
        "attributes": m.get("Attributes", {}), "messageAttributes": {}, "md5OfBody": m["MD5OfBody"],
        "eventSource": "aws:sqs", "eventSourceARN": arn, "awsRegion": REGION}
        for m in (received[i] for i in sent)]}, sent


def ecr_event(host: str, repository: str, tag: str, digest: str,
              media_type: str | None = "application/vnd.cncf.helm.config.v1+json") -> dict[str, Any]:
    """EventBridge's ECR Image Action (CONTRACTS.md 3.2)."""
    account, region = host.split(".")[0], host.split(".")[3]
    detail = {"result": "SUCCESS", "repository-name": repository, "image-digest": digest, "action-type": "PUSH",
              "image-tag": tag, "manifest-media-type": "application/vnd.oci.image.manifest.v1+json"}
    if media_type is not None:
        detail["artifact-media-type"] = media_type
    return {"version": "0", "id": str(uuid.uuid4()), "detail-type": "ECR Image Action", "source": "aws.ecr",
            "account": account, "time": "2026-05-04T10:00:00Z", "region": region, "resources": [], "detail": detail}


def spec(bucket: str, namespace: str, **web: Any) -> str:
    release = {"name": "web", "namespace": namespace, "chart": f"s3://{bucket}/apps/web", "version": "^1.0", **web}
    return json.dumps({"releases": [release, {"name": "other", "namespace": namespace,
                                              "chart": f"s3://{bucket}/apps/other"}]})


def heads(cluster: Any, namespace: str, name: str) -> list[tuple[int, str]]:
    return [(h.version, h.status) for h in config(cluster, namespace).storage.heads(name)]


def by_name(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in answer["releases"]}


def log_lines(function: Any) -> list[dict[str, Any]]:
    return [json.loads(line) for line in function.log().splitlines() if line.startswith("{")]


# -- the tests --------------------------------------------------------------------------------

def test_an_s3_push_deploys_the_release_of_that_chart_once_and_never_back(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    put(eks, bucket, "deploy-runner.yaml", spec(bucket, namespace))
    for version in ("1.0.0", "1.1.0"):
        put(eks, bucket, f"apps/web-{version}.tgz", package(helm, tmp_path, "web", version).read_bytes())
    running = function.start(DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml")

    first = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))
    assert first["error"] is None and first["outcome"] == "changed", first
    web, other = by_name(first)["web"], by_name(first)["other"]
    assert (web["status"], web["action"], web["revision"], web["chart_version"]) == ("deployed", "install", 1, "1.0.0")
    assert other["status"] == "not-selected" and f"s3://{bucket}/apps/web" in other["reason"]
    assert first["trigger"] == {"kind": "s3", "chart": f"s3://{bucket}/apps/web-1.0.0.tgz", "version": "1.0.0"}
    live = eks.cluster.client().request("GET", f"/api/v1/namespaces/{namespace}/configmaps/web-config").body
    assert live["data"] == {"message": "hello", "version": "1.0.0"}

    again = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))  # S3 delivers at least once
    assert by_name(again)["web"]["status"] == "unchanged"
    assert heads(eks.cluster, namespace, "web") == [(1, "deployed")]

    newer = running.invoke(s3_event(bucket, "apps/web-1.1.0.tgz"))
    assert by_name(newer)["web"]["revision"] == 2
    older = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))  # late: after the newer one
    assert by_name(older)["web"]["status"] == "skipped"
    assert "1.0.0 is older than 1.1.0" in by_name(older)["web"]["reason"]
    assert heads(eks.cluster, namespace, "web") == [(2, "deployed"), (1, "superseded")]

    lines = [line for line in log_lines(running) if line.get("release") == "web"]
    assert [line["status"] for line in lines] == ["deployed", "unchanged", "deployed", "skipped"]
    assert {"level", "location", "message", "timestamp", "service", "cold_start", "function_name",
            "function_request_id"} <= set(lines[0])
    assert lines[0]["cold_start"] is True and lines[1]["cold_start"] is False
    seconds = [i["seconds"] for i in running.invocations]
    print(f"\nS3 push: event to deployed (cold) {seconds[0]:.2f}s, duplicate {seconds[1]:.2f}s, "
          f"upgrade (warm) {seconds[2]:.2f}s, older push skipped {seconds[3]:.2f}s")


def test_an_ecr_push_of_a_chart_deploys_and_an_image_push_is_skipped(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    from testbed.aws import ecr_password
    from testbed.registry import running_registry

    archive = package(helm, tmp_path, "api", "2.0.0")
    password = ecr_password()
    with running_registry(users={"AWS": password}) as registry:
        host = eks.aws.ecr_registry(f"http://{registry.address}")
        assert helm("registry", "login", registry.address, "-u", "AWS", "-p", password, "--plain-http").returncode == 0
        pushed = helm("push", str(archive), f"oci://{registry.address}/charts", "--plain-http")
        assert pushed.returncode == 0, pushed.stderr
        digest = re.search(r"Digest: (sha256:[0-9a-f]{64})", pushed.stdout + pushed.stderr)[1]
        put(eks, bucket, "deploy-runner.yaml", json.dumps({"releases": [
            {"name": "api", "namespace": namespace, "chart": f"oci://{host}/charts/api", "version": "^2"}]}))
        running = function.start(DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml")

        answer = running.invoke(ecr_event(host, "charts/api", "2.0.0", digest))
        api = by_name(answer)["api"]
        assert (api["status"], api["revision"], api["chart_version"]) == ("deployed", 1, "2.0.0"), answer
        image = running.invoke(ecr_event(host, "charts/api", "2.0.1", digest,
                                         media_type="application/vnd.oci.image.config.v1+json"))
        assert image["releases"] == [] and "not a Helm chart" in image["skipped"]
        untyped = running.invoke(ecr_event(host, "charts/api", "2.0.2", digest, media_type=None))
        assert "no artifact media type" in untyped["skipped"]
    assert heads(eks.cluster, namespace, "api") == [(1, "deployed")]
    print(f"\nECR push: event to deployed {running.invocations[0]['seconds']:.2f}s")


def test_an_sqs_batch_answers_with_the_messages_that_failed(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    put(eks, bucket, "deploy-runner.yaml", spec(bucket, namespace))
    put(eks, bucket, "apps/web-1.0.0.tgz", package(helm, tmp_path, "web", "1.0.0").read_bytes())
    running = function.start(DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml")
    event, ids = sqs_event(eks.aws, json.dumps(s3_event(bucket, "apps/web-1.0.0.tgz")),
                           json.dumps(s3_event(bucket, "apps/web-1.0.7.tgz")),  # no such object
                           "not JSON at all",
                           json.dumps(s3_event(bucket, "apps/readme.txt")))  # not a chart: skipped

    answer = running.invoke(event)
    assert answer["batchItemFailures"] == [{"itemIdentifier": ids[1]}, {"itemIdentifier": ids[2]}]
    good, missing, garbled, text = answer["runs"]
    assert by_name(good)["web"]["status"] == "deployed"
    assert "NoSuchKey" in missing["error"]
    assert "not JSON" in garbled["error"]
    assert text["error"] is None and "not a chart archive" in text["skipped"]
    assert heads(eks.cluster, namespace, "web") == [(1, "deployed")]


def test_a_deadline_too_short_for_the_wait_fails_the_release_and_frees_its_lock(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    from runner.kube.lease import lock_state

    put(eks, bucket, "deploy-runner.yaml", spec(bucket, namespace, wait="watcher", timeout="5m"))
    put(eks, bucket, "apps/web-1.0.0.tgz", package(helm, tmp_path, "web", "1.0.0", NEVER_READY).read_bytes())
    running = function.start(timeout=25, DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml")

    answer = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))
    web = by_name(answer)["web"]
    assert web["status"] == "failed" and "context deadline exceeded" in web["error"], web
    assert heads(eks.cluster, namespace, "web") == [(1, "failed")]
    assert "web-stuck" in " ".join(n["resource"] for n in web["not_ready"])
    assert lock_state(eks.cluster.client(), namespace, "web") is None
    seconds = running.invocations[0]["seconds"]
    assert seconds < 25  # answered, not killed by the emulator's timeout (which answers no JSON)
    print(f"\ndeadline: a 25 s function answered after {seconds:.1f}s with the release failed")


HOSTILE = {
    "huge": {"spec": {"releases": [{"name": "x", "chart": "./c", "description": "y" * (2 * 1024 * 1024)}]}},
    "wrong types": {"Records": [{"eventSource": "aws:s3", "eventName": "ObjectCreated:Put",
                                 "s3": {"bucket": {"name": ["charts"]}, "object": {"key": 7}}}]},
    "dot-dot key": None,  # an S3 notification whose key climbs out of its prefix (made below)
    "direct, bad releases": {"spec": {"releases": []}, "releases": [1, 2]},
    "direct, unknown key": {"spec": {"releases": []}, "deploy": True},
    "a list": [1, 2, 3],
    "EventBridge, no detail": {"source": "aws.ecr", "detail-type": "ECR Image Action", "detail": "push"},
}


def test_malformed_and_hostile_events_get_an_error_and_nothing_is_written(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    put(eks, bucket, "deploy-runner.yaml", spec(bucket, namespace))
    put(eks, bucket, "apps/web-1.0.0.tgz", package(helm, tmp_path, "web", "1.0.0").read_bytes())
    running = function.start(DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml")
    events = {**HOSTILE, "dot-dot key": s3_event(bucket, "apps/../apps/web-1.0.0.tgz")}
    for what, event in events.items():
        answer = running.invoke(event)
        assert answer["error"], (what, answer)
        assert answer["releases"] == [], what
    assert "'..' segment" in running.invocations[2]["answer"]["error"]
    assert heads(eks.cluster, namespace, "web") == []  # nothing deployed
    assert running.process.poll() is None  # the function still takes events
    good = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))  # and nothing of theirs stays
    assert good["error"] is None and by_name(good)["web"]["status"] == "deployed"
    assert by_name(good)["web"]["messages"] == [] and good["warnings"] == []


def test_a_direct_invocation_with_a_kubeconfig_from_secrets_manager_and_a_spec_in_ssm(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    secret, parameter = f"kubeconfig-{uuid.uuid4().hex[:6]}", f"/deploy-runner/{uuid.uuid4().hex[:6]}/spec"
    eks.aws.client("secretsmanager").create_secret(Name=secret, SecretString=eks.cluster.kubeconfig.read_text())
    put(eks, bucket, "apps/web-1.0.0.tgz", package(helm, tmp_path, "web", "1.0.0").read_bytes())
    eks.aws.client("ssm").put_parameter(Name=parameter, Type="String", Value=spec(bucket, namespace))
    running = function.start(DEPLOY_RUNNER_KUBECONFIG_SECRET=secret, DEPLOY_RUNNER_EKS_CLUSTER="")

    planned = running.invoke({"specRef": f"ssm:{parameter}", "releases": ["web"], "plan": True})
    assert planned["error"] is None, planned
    assert by_name(planned)["web"]["status"] == "planned" and planned["mode"] == "plan", planned
    assert heads(eks.cluster, namespace, "web") == []
    deployed = running.invoke({"specRef": f"ssm:{parameter}", "releases": ["web"]})
    assert (by_name(deployed)["web"]["status"], by_name(deployed)["other"]["status"]) == ("deployed", "not-selected")
    inline = running.invoke({"spec": json.loads(spec(bucket, namespace)), "releases": ["web"]})
    assert by_name(inline)["web"]["status"] == "unchanged"
    assert heads(eks.cluster, namespace, "web") == [(1, "deployed")]
    escaping = running.invoke({"specRef": "../../etc/passwd"})
    assert "inside the function's package" in escaping["error"]
    cold, warm = running.invocations[0]["seconds"], running.invocations[2]["seconds"]
    print(f"\ndirect invocation: plan (cold) {cold:.2f}s, unchanged run (warm) {warm:.2f}s")


def test_the_cold_start_and_a_warm_invocation_before_any_chart_work(function: Function, eks: Any) -> None:
    """What an invocation costs the function itself: an event it only reads (no spec, no
    chart, no cluster), first in a fresh container, then warm."""
    timings = []
    for _ in range(3):
        running = function.start()
        for _ in range(6):
            assert "S3 test event" in running.invoke({"Event": "s3:TestEvent"})["skipped"]
        seconds = [i["seconds"] for i in running.invocations]
        timings.append((seconds[0], min(seconds[1:])))
        running.stop()
    print("\ncold start to first byte: " + ", ".join(f"{c * 1000:.0f} ms" for c, _ in timings)
          + "; warm invocation: " + ", ".join(f"{w * 1000:.1f} ms" for _, w in timings))


def test_a_push_posts_check_runs_on_the_commit_the_chart_names_as_a_github_app(
        function: Function, eks: Any, bucket: str, namespace: str, helm: Any, tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    from testbed.github import FakeGitHub

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    sha = "9f" * 20
    chart = write_chart(tmp_path / "charts", "web", "1.0.0", templates=CONFIGMAP, values="message: hi\n")
    with (chart / "Chart.yaml").open("a") as handle:  # what a chart's CI writes into it
        handle.write("sources: [https://github.com/Codertocat/Hello-World]\n"
                     f"annotations:\n  org.opencontainers.image.revision: {sha}\n")
    assert helm("package", str(chart), "-d", str(tmp_path / "packages")).returncode == 0
    put(eks, bucket, "apps/web-1.0.0.tgz", (tmp_path / "packages" / "web-1.0.0.tgz").read_bytes())
    put(eks, bucket, "deploy-runner.yaml", spec(bucket, namespace))
    secret = f"github-app-{uuid.uuid4().hex[:6]}"
    eks.aws.client("secretsmanager").create_secret(Name=secret, SecretString=json.dumps(
        {"app_id": "123456", "private_key": private}))

    with FakeGitHub(app=("123456", public)) as github:
        running = function.start(DEPLOY_RUNNER_SPEC=f"s3://{bucket}/deploy-runner.yaml",
                                 DEPLOY_RUNNER_GITHUB_SECRET=secret, DEPLOY_RUNNER_GITHUB_API_URL=github.url)
        answer = running.invoke(s3_event(bucket, "apps/web-1.0.0.tgz"))
        assert by_name(answer)["web"]["status"] == "deployed", answer
        [run] = github.runs_named("deploy-runner web")
        assert run.fields["head_sha"] == sha and run.fields["status"] == "completed"
        assert run.fields["conclusion"] == "success"
        assert github.runs_named("deploy-runner other") == []  # not the pushed chart: no check run
        assert github.rejections == [] and len(github.minted) == 1
        [create] = github.calls("checks/create")
        assert create.headers.get("Authorization", "").endswith(github.minted[0])
    log = running.log()
    assert "PRIVATE KEY" not in log and github.minted[0] not in log
    [line] = [entry for entry in log_lines(running) if entry["message"] == "GitHub report"]
    assert (line["repository"], line["revision"], line["warnings"]) == ("Codertocat/Hello-World", sha, [])


def test_the_zip_of_each_architecture_holds_the_function_and_stays_under_lambdas_limit(
        runtime: tuple[str, str], tmp_path: Path) -> None:
    python, version = runtime
    compile_with = ["--compile-with", python] if version == "3.12" else []
    built = subprocess.run([sys.executable, str(REPOSITORY / "lambda" / "build.py"), "--python-version", "3.12",
                            *compile_with, "--out", str(tmp_path)], capture_output=True, text=True, check=False)
    assert built.returncode == 0, built.stderr
    print("\n" + built.stdout.strip())
    for arch, machine in (("x86_64", "x86_64"), ("arm64", "aarch64")):
        with zipfile.ZipFile(tmp_path / f"deploy-runner-lambda-3.12-{arch}.zip") as archive:
            names = archive.namelist()
            unzipped = sum(info.file_size for info in archive.infolist())
        assert unzipped < 250 * 1000 * 1000, (arch, unzipped)
        assert "handler.py" in names and "runner/awslambda/__init__.py" in names and "botocore/__init__.py" in names
        assert not [n for n in names if n.startswith(("testbed/", "awslambdaric/", "bin/"))]
        native = [n for n in names if n.endswith(".so") and "cpython-312" in n]
        assert native and all(machine in n for n in native), (arch, native[:3])
        assert f"{arch}.zip: " in built.stdout and "MB unzipped" in built.stdout


@pytest.mark.parametrize("compiler", ["no-such-python3.12", "false"])
def test_a_compiler_that_does_not_run_is_named_in_one_line(compiler: str, tmp_path: Path) -> None:
    built = subprocess.run([sys.executable, str(REPOSITORY / "lambda" / "build.py"), "--python-version", "3.12",
                            "--compile-with", compiler, "--out", str(tmp_path)],
                           capture_output=True, text=True, check=False)
    assert built.returncode == 1
    assert built.stderr.startswith(f"error: --compile-with {compiler}") and "Traceback" not in built.stderr
    assert len(built.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.glob("*.zip"))
