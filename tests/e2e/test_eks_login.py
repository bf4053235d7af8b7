"""The EKS login (`--eks-cluster`, a spec environment's `eks`) against the testbed as an EKS
cluster: moto in server mode answers DescribeCluster and STS (real botocore over HTTP), the
testbed's API server asks its token webhook, which checks each token as EKS's
aws-iam-authenticator does and maps the identity STS vouches for to Kubernetes groups.
No kubeconfig exists in these runs; the refusals each end in one line."""

from __future__ import annotations

import base64
import datetime
import json
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.conftest import EKS_ADMINS
from tests.fixtures import write_chart

pytestmark = pytest.mark.e2e

CM_ONLY = {"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\n"
                      "data:\n  message: {{ .Values.message | quote }}\n"}


def deploy_runner(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "deploy-runner"), *args], env=env,
                          capture_output=True, text=True, timeout=180, check=False)


def one_error_line(stderr: str) -> str:
    """The whole of stderr, which must be a single `Error: ...` line."""
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), stderr
    return lines[0]


def admin_helm_status(helm, name: str, namespace: str) -> dict:
    """The release as Helm 4.1.4 reads it with the testbed's admin kubeconfig."""
    done = helm("status", name, "-n", namespace, "-o", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def configmap(cluster, namespace: str, name: str) -> dict | None:
    reply = cluster.client().request("GET", f"/api/v1/namespaces/{namespace}/configmaps/{name}")
    return reply.body if reply.ok else None


# -- logging in and deploying ---------------------------------------------------------------


def test_install_upgrade_list_and_status_with_an_eks_login_and_no_kubeconfig(eks, namespace, tmp_path, helm):
    keys = eks.identity(groups=(EKS_ADMINS,))
    env = eks.env(keys, tmp_path)
    assert not Path(env["KUBECONFIG"]).exists()
    chart = write_chart(tmp_path, templates=CM_ONLY)
    cluster = ["--eks-cluster", eks.name, "--eks-region", eks.region, "-n", namespace]

    done = deploy_runner(["install", "web", str(chart), *cluster], env)
    assert done.returncode == 0, done.stderr
    assert "STATUS: deployed" in done.stdout
    done = deploy_runner(["upgrade", "web", str(chart), "--set", "message=again", *cluster], env)
    assert done.returncode == 0, done.stderr
    assert "REVISION: 2" in done.stdout
    listed = deploy_runner(["list", *cluster], env)
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()[1:]
    assert len(rows) == 1 and rows[0].split()[0] == "web" and "\tdeployed" in rows[0], listed.stdout
    status = deploy_runner(["status", "web", *cluster], env)
    assert status.returncode == 0, status.stderr
    assert "STATUS: deployed" in status.stdout and "REVISION: 2" in status.stdout

    # Seen with the testbed's admin certificate, by Helm itself.
    release = admin_helm_status(helm, "web", namespace)
    assert (release["version"], release["info"]["status"]) == (2, "deployed")
    assert configmap(eks.cluster, namespace, "web-cm")["data"] == {"message": "again"}
    assert f"accepted: {keys.arn} as " in eks.webhook_log()

    # The same login from the DEPLOY_RUNNER_EKS_* variables (the region from AWS_REGION).
    variables = {**env, "DEPLOY_RUNNER_EKS_CLUSTER": eks.name}
    listed = deploy_runner(["list", "-n", namespace], variables)
    assert (listed.returncode, listed.stdout.splitlines()[1].split()[0]) == (0, "web"), listed.stderr


def test_a_role_is_assumed_and_the_api_server_sees_the_role(eks, namespace, tmp_path, monkeypatch):
    caller = eks.identity(mapped=False)  # only the role has access
    role = eks.role(caller, groups=(EKS_ADMINS,))
    env = eks.env(caller, tmp_path)
    chart = write_chart(tmp_path, templates=CM_ONLY)

    refused = deploy_runner(["list", "--eks-cluster", eks.name, "-n", namespace], env)
    assert refused.returncode == 1
    assert f'refused the EKS token for cluster "testbed" (AWS identity {caller.arn})' in one_error_line(refused.stderr)

    done = deploy_runner(["install", "by-role", str(chart), "--eks-cluster", eks.name, "--eks-role-arn", role,
                          "-n", namespace], env)
    assert done.returncode == 0, done.stderr
    assert configmap(eks.cluster, namespace, "by-role-cm") is not None

    # Who the API server takes us for, in its own words (a SelfSubjectReview).
    from runner.kube.client import KubeClient
    from runner.kube.kubeconfig import ClusterAccess

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    client = KubeClient.connect(ClusterAccess(eks_cluster=eks.name, eks_role_arn=role))
    review = client.checked("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "review",
                            body={"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    user = review["status"]["userInfo"]
    role_name = role.rsplit("/", 1)[1]
    assert user["username"] == "deployer:deploy-runner"
    assert EKS_ADMINS in user["groups"]
    assert user["extra"]["arn"] == [f"arn:aws:sts::123456789012:assumed-role/{role_name}/deploy-runner"]
    assert user["extra"]["canonicalArn"] == [role]


def test_a_spec_environment_names_its_eks_cluster(eks, namespace, tmp_path, helm):
    keys = eks.identity(groups=(EKS_ADMINS,))
    env = eks.env(keys, tmp_path)
    write_chart(tmp_path / "charts", name="app", templates=CM_ONLY)
    spec = tmp_path / "deploy-runner.yaml"
    spec.write_text(
        "environments:\n"
        "  production:\n"
        f"    eks: {{cluster: {eks.name}, region: {eks.region}}}\n"
        "releases:\n"
        f"- name: app\n  namespace: {namespace}\n  chart: ./charts/app-1.0.0\n"
        "  values: [{message: from the spec}]\n")

    done = deploy_runner(["run", "--spec", str(spec), "--environment", "production"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert admin_helm_status(helm, "app", namespace)["info"]["status"] == "deployed"
    assert configmap(eks.cluster, namespace, "app-cm")["data"] == {"message": "from the spec"}
    assert f"accepted: {keys.arn} as " in eks.webhook_log()

    # A cluster named on the command line wins over the environment's: here the admin
    # kubeconfig, with no AWS credentials at all.
    without_aws = {k: v for k, v in env.items() if not k.startswith("AWS_")}
    planned = deploy_runner(["run", "--spec", str(spec), "--environment", "production", "--plan",
                             "--kubeconfig", str(eks.cluster.kubeconfig)], without_aws)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    # ... and without one, the environment's EKS cluster needs those credentials.
    failed = deploy_runner(["run", "--spec", str(spec), "--environment", "production", "--plan"], without_aws)
    assert failed.returncode == 1
    assert 'EKS cluster "testbed" (eu-west-1): no AWS credentials found' in failed.stdout + failed.stderr


# -- refusals, one line each ---------------------------------------------------------------


def test_a_token_made_for_another_cluster_is_refused(eks, tmp_path):
    keys = eks.identity(groups=(EKS_ADMINS,))
    other = f"other-{uuid.uuid4().hex[:6]}"
    # Another cluster of the account whose DescribeCluster leads to the same API server: the
    # token says `other`, the authenticator asks STS with its own name, the signature fails.
    eks.aws.add_eks_cluster(other, eks.cluster.server, eks.cluster.testbed.pki.ca.cert.read_bytes())
    done = deploy_runner(["list", "--eks-cluster", other], eks.env(keys, tmp_path))
    assert done.returncode == 1
    line = one_error_line(done.stderr)
    assert line == (f'Error: kubernetes cluster unreachable: Unauthorized: the API server refused the EKS token '
                    f'for cluster "{other}" (AWS identity {keys.arn}): the identity needs an access entry (or '
                    "aws-auth mapping) on the cluster, and this machine's clock must be right")
    assert "SignatureDoesNotMatch" in eks.webhook_log()


def in_process(eks, keys, tmp_path, monkeypatch, capsys, args: list[str]) -> tuple[int, str]:
    """Our CLI in this process (so botocore can be steered), in a login environment."""
    from runner.cli import main

    for name, value in eks.env(keys, tmp_path).items():
        monkeypatch.setenv(name, value)
    code = main(args)
    return code, capsys.readouterr().err


def test_an_expired_token_is_refused(eks, tmp_path, monkeypatch, capsys):
    """A machine whose clock is 20 minutes behind signs tokens the authenticator finds
    expired (15 minutes from X-Amz-Date); renewing one on the 401 does not help."""
    import botocore.auth

    keys = eks.identity(groups=(EKS_ADMINS,))
    real = botocore.auth.get_current_datetime
    monkeypatch.setattr(botocore.auth, "get_current_datetime",
                        lambda *a, **k: real(*a, **k) - datetime.timedelta(minutes=20))
    code, err = in_process(eks, keys, tmp_path, monkeypatch, capsys, ["list", "--eks-cluster", eks.name])
    assert code == 1
    assert 'Unauthorized: the API server refused the EKS token for cluster "testbed"' in one_error_line(err)
    assert "X-Amz-Date parameter is expired (15 minute expiration)" in eks.webhook_log()


def test_a_token_without_the_signed_cluster_header_is_refused(eks, tmp_path, monkeypatch, capsys):
    from runner.aws import eks as eks_login

    keys = eks.identity(groups=(EKS_ADMINS,))
    monkeypatch.setattr(eks_login, "_cluster_id_header", lambda request, **_: None)  # never signed
    code, err = in_process(eks, keys, tmp_path, monkeypatch, capsys, ["list", "--eks-cluster", eks.name])
    assert code == 1
    assert 'refused the EKS token for cluster "testbed"' in one_error_line(err)
    assert "client did not sign the x-k8s-aws-id header in the pre-signed URL" in eks.webhook_log()


def test_an_unknown_cluster_missing_credentials_and_a_denied_describe_are_one_line_each(eks, tmp_path):
    keys = eks.identity(groups=(EKS_ADMINS,))
    env = eks.env(keys, tmp_path)
    done = deploy_runner(["status", "web", "--eks-cluster", "nowhere"], env)
    assert done.returncode == 1
    assert one_error_line(done.stderr) == (
        'Error: kubernetes cluster unreachable: EKS cluster "nowhere" (eu-west-1): no such cluster in eu-west-1 '
        "(eks:DescribeCluster: ResourceNotFoundException: No cluster found for name: nowhere.)")

    no_keys = {k: v for k, v in env.items() if k not in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY")}
    done = deploy_runner(["list", "--eks-cluster", eks.name], no_keys)
    assert done.returncode == 1
    assert one_error_line(done.stderr).startswith(
        'Error: kubernetes cluster unreachable: EKS cluster "testbed" (eu-west-1): no AWS credentials found')

    no_region = {k: v for k, v in env.items() if k != "AWS_REGION"}
    done = deploy_runner(["list", "--eks-cluster", eks.name], no_region)
    assert one_error_line(done.stderr) == (
        'Error: kubernetes cluster unreachable: EKS cluster "testbed": no AWS region: give --eks-region (or the '
        "spec's eks.region), or set AWS_REGION")

    from moto.core.authorization import enable_iam_authentication

    # moto checks IAM policies while this lasts: the caller may not assume the role (moto
    # 5.2.5 cannot check the signature of a REST-JSON GET such as DescribeCluster, so the
    # refusal of that is a unit test: tests/unit/aws/test_eks.py).
    caller = eks.identity(policy={"Version": "2012-10-17", "Statement": [
        {"Effect": "Allow", "Action": "eks:DescribeCluster", "Resource": "*"}]})
    role = eks.role(eks.identity(mapped=False))  # trusts another identity
    with enable_iam_authentication():
        done = deploy_runner(["list", "--eks-cluster", eks.name, "--eks-role-arn", role], eks.env(caller, tmp_path))
    assert done.returncode == 1
    assert one_error_line(done.stderr) == (
        f'Error: kubernetes cluster unreachable: EKS cluster "testbed" (eu-west-1): sts:AssumeRole of {role} was '
        f"refused: AccessDenied: User: {caller.arn} is not authorized to perform: sts:AssumeRole")


# -- the authenticator itself, with tokens made here from botocore's parts ----------------------


def handmade_token(eks, keys, *, cluster: str = "testbed", sign_header: bool = True, minutes_ago: int = 0,
                   host: str = "", extra: dict | None = None) -> str:
    """A token made as `aws eks get-token` makes one, from botocore's signer directly."""
    import botocore.auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    query = {"Action": "GetCallerIdentity", "Version": "2011-06-15", **(extra or {})}
    request = AWSRequest(method="GET", url=f"{host or eks.aws.endpoint}/?{urlencode(query)}",
                         headers={"x-k8s-aws-id": cluster} if sign_header else {})
    signer = botocore.auth.SigV4QueryAuth(Credentials(keys.access_key_id, keys.secret_access_key), "sts",
                                          eks.region, expires=60)
    real = botocore.auth.get_current_datetime
    botocore.auth.get_current_datetime = lambda *a, **k: real(*a, **k) - datetime.timedelta(minutes=minutes_ago)
    try:
        signer.add_auth(request)
    finally:
        botocore.auth.get_current_datetime = real
    return "k8s-aws-v1." + base64.urlsafe_b64encode(request.url.encode()).decode().rstrip("=")


def test_the_testbed_authenticator_checks_tokens_as_eks_does(eks):
    from runner.kube.client import KubeClient
    from runner.kube.kubeconfig import ClusterAccess

    keys = eks.identity(groups=(EKS_ADMINS,))

    def status(token: str) -> int:
        access = ClusterAccess(kubeconfig="/dev/null", apiserver=eks.cluster.server, token=token,
                               ca_file=str(eks.cluster.testbed.pki.ca.cert))
        return KubeClient.connect(access).transport.request("GET", "/api/v1/namespaces", [], {}, None).status

    assert status(handmade_token(eks, keys)) == 200
    assert status(handmade_token(eks, keys, minutes_ago=14)) == 200
    assert status(handmade_token(eks, keys, minutes_ago=16)) == 401
    assert status(handmade_token(eks, keys, sign_header=False)) == 401
    assert status(handmade_token(eks, keys, cluster="another")) == 401
    assert status(handmade_token(eks, keys, host="http://127.0.0.2:1")) == 401
    assert status(handmade_token(eks, keys, extra={"Extra": "1"})) == 401
    assert status("k8s-aws-v1.bm90IGEgdXJs") == 401
    unmapped = eks.identity(mapped=False)
    assert status(handmade_token(eks, unmapped)) == 401
    log = eks.webhook_log()
    for reason in ("X-Amz-Date parameter is expired", "client did not sign the x-k8s-aws-id header",
                   "SignatureDoesNotMatch", "unexpected STS endpoint http://127.0.0.2:1",
                   "non-whitelisted query parameter 'Extra'", f"ARN is not mapped: {unmapped.arn}"):
        assert reason in log
