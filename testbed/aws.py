"""AWS for the tests: moto in server mode on loopback (real botocore over HTTP reaches it
through AWS_ENDPOINT_URL), with the two things an EKS login needs that moto lacks.

- STS and presigned URLs. Real STS checks a presigned URL's SigV4 signature, with the
  headers it is sent with, and answers for the credentials that signed it. moto checks
  no signature there and, finding no Authorization header, answers for a default user.
  `PresignedCallerIdentity` (WSGI, in front of moto) checks the signature with the secret
  moto holds for the access key (an IAM user's key or an assumed role's), refuses as STS
  does (SignatureDoesNotMatch, InvalidClientTokenId), then hands moto the request with an
  Authorization header naming that key, so moto answers for the right identity. This is
  what makes a token made for another cluster fail: the authenticator sends its own
  cluster's name in the signed x-k8s-aws-id header.
- EKS clusters whose endpoint and CA are the testbed's: moto's DescribeCluster makes up
  both; `add_eks_cluster` creates the cluster through the API, then sets them in moto's
  backend (the server runs in this process, so its backends are ours to set).
- ECR registries that hold images: moto keeps none, and its GetAuthorizationToken names
  the account's registry host (`proxyEndpoint`), which nothing serves here. `EcrRegistries`
  (in front of moto) answers for a registry given with `ecr_registry(account, region,
  endpoint)` with that endpoint as its proxyEndpoint (the tests' OCI registry, where the
  user `AWS` with moto's password `ACCOUNT-auth-token` logs in) and a validity of 12 hours.

    with AwsServer.start() as aws:
        env = aws.environment()        # AWS_ENDPOINT_URL, credentials of an IAM user, region
        aws.add_eks_cluster("prod", testbed.server, ca_pem)
        testbed.configure_eks("prod", aws.endpoint, map_users=[...])

Test infrastructure: imports moto (a test dependency) and botocore.
"""

from __future__ import annotations

import base64
import threading
import uuid
from dataclasses import dataclass
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs

ACCOUNT = "123456789012"  # moto's default account
REGION = "eu-west-1"
LOOPBACK = "127.0.0.1"
STS_NAMESPACE = "https://sts.amazonaws.com/doc/2011-06-15/"


class Refusal(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class PresignedCallerIdentity:
    """WSGI: a presigned sts:GetCallerIdentity is checked as STS checks it, then answered by
    moto for the credentials that signed it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.checked: list[str] = []  # the access keys of the URLs that passed, in order

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        raw = str(environ.get("QUERY_STRING") or "")
        query = parse_qs(raw, keep_blank_values=True)
        if "X-Amz-Signature" not in query or query.get("Action") != ["GetCallerIdentity"]:
            return self.app(environ, start_response)
        try:
            authorization = self._check(environ, raw, {k: v[0] for k, v in query.items()})
        except Refusal as err:
            return _sts_error(start_response, err)
        environ["HTTP_AUTHORIZATION"] = authorization
        return self.app(environ, start_response)

    def _check(self, environ: dict[str, Any], raw: str, query: dict[str, str]) -> str:
        from botocore.auth import SigV4QueryAuth
        from botocore.awsrequest import AWSRequest

        try:
            key, _date, region, service, _ = query["X-Amz-Credential"].split("/")
            signed = query["X-Amz-SignedHeaders"].split(";")
            expires = int(query["X-Amz-Expires"])
            timestamp = query["X-Amz-Date"]
        except (KeyError, ValueError):
            raise Refusal("IncompleteSignature", "the request signature is incomplete") from None
        credentials = _moto_credentials(key, query.get("X-Amz-Security-Token"))
        # The request as the client signed it: its query without the signature, and the
        # headers it named (STS takes them as sent: a different x-k8s-aws-id fails here).
        unsigned = "&".join(p for p in raw.split("&") if not p.startswith("X-Amz-Signature="))
        host = str(environ.get("HTTP_HOST") or "")
        headers = {name: str(environ.get("HTTP_" + name.upper().replace("-", "_")) or "")
                   for name in signed if name != "host"}
        request = AWSRequest(method=str(environ["REQUEST_METHOD"]),
                             url=f"http://{host}{environ.get('PATH_INFO') or '/'}?{unsigned}", headers=headers)
        request.context["timestamp"] = timestamp
        auth = SigV4QueryAuth(credentials, service, region, expires=expires)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if expected != query["X-Amz-Signature"]:
            raise Refusal("SignatureDoesNotMatch", "The request signature we calculated does not match the "
                                                   "signature you provided.")
        self.checked.append(key)
        scope = query["X-Amz-Credential"]
        return f"AWS4-HMAC-SHA256 Credential={scope}, SignedHeaders={';'.join(signed)}, Signature={expected}"


def _moto_credentials(key: str, session_token: str | None) -> Any:
    """The credentials moto issued with access key `key` (an IAM user's, or an assumed role's
    with its session token)."""
    from moto.iam.access_control import CreateAccessKeyFailure, create_access_key
    from moto.iam.models import get_account_id_from

    headers = {"X-Amz-Security-Token": session_token} if session_token else {}
    for account in dict.fromkeys((get_account_id_from(key), ACCOUNT)):
        try:
            return create_access_key(account, "aws", key, headers).create_credentials()
        except CreateAccessKeyFailure:
            continue
    raise Refusal("InvalidClientTokenId", "The security token included in the request is invalid.")


def _sts_error(start_response: Any, err: Refusal) -> list[bytes]:
    body = (f'<ErrorResponse xmlns="{STS_NAMESPACE}"><Error><Type>Sender</Type><Code>{err.code}</Code>'
            f"<Message>{err}</Message></Error><RequestId>{uuid.uuid4()}</RequestId></ErrorResponse>").encode()
    start_response("403 Forbidden", [("Content-Type", "text/xml"), ("Content-Length", str(len(body)))])
    return [body]


def ecr_password(account: str = ACCOUNT) -> str:
    """The password moto's ecr:GetAuthorizationToken gives the user AWS."""
    return f"{account}-auth-token"


class EcrRegistries:
    """WSGI: ecr:GetAuthorizationToken answered by moto, with the proxyEndpoint of each
    registry given to `add` (and a token valid for 12 hours, as ECR's)."""

    TARGET = "AmazonEC2ContainerRegistry_V20150921.GetAuthorizationToken"

    def __init__(self, app: Any) -> None:
        self.app = app
        self.endpoints: dict[str, str] = {}  # ACCOUNT.dkr.ecr.REGION.amazonaws.com -> endpoint URL

    def add(self, account: str, region: str, endpoint: str) -> str:
        host = f"{account}.dkr.ecr.{region}.amazonaws.com"
        self.endpoints[host] = endpoint
        return host

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if environ.get("HTTP_X_AMZ_TARGET") != self.TARGET:
            return self.app(environ, start_response)
        answered: dict[str, Any] = {}

        def keep(status: str, headers: list[tuple[str, str]], *_: Any) -> Any:
            answered.update(status=status, headers=headers)
            return lambda data: None

        body = b"".join(self.app(environ, keep))
        if answered["status"].startswith("200"):
            import json
            import time

            answer = json.loads(body)
            for entry in answer.get("authorizationData") or []:
                host = str(entry.get("proxyEndpoint", "")).removeprefix("https://")
                entry["proxyEndpoint"] = self.endpoints.get(host, entry["proxyEndpoint"])
                entry["expiresAt"] = time.time() + 12 * 3600
            body = json.dumps(answer).encode()
        headers = [(k, v) for k, v in answered["headers"] if k.lower() != "content-length"]
        start_response(answered["status"], [*headers, ("Content-Length", str(len(body)))])
        return [body]


@dataclass(frozen=True)
class Keys:
    access_key_id: str
    secret_access_key: str
    arn: str


class AwsServer:
    """moto's server on a free loopback port, in a thread of this process."""

    def __init__(self) -> None:
        from moto.moto_server.werkzeug_app import (
            DomainDispatcherApplication,
            MotoRequestHandler,
            create_backend_app,
        )
        from werkzeug.serving import make_server

        class QuietHandler(MotoRequestHandler):
            def log_request(self, *args: Any) -> None:
                pass  # a line per request on the tests' stderr

        self.sts = PresignedCallerIdentity(DomainDispatcherApplication(create_backend_app))
        self.ecr = EcrRegistries(self.sts)
        self._server = make_server(LOOPBACK, 0, self.ecr, threaded=True, request_handler=QuietHandler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="moto", daemon=True)

    @classmethod
    def start(cls) -> AwsServer:
        server = cls()
        server._thread.start()
        return server

    @property
    def endpoint(self) -> str:
        return f"http://{LOOPBACK}:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def __enter__(self) -> AwsServer:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    # -- clients and identities ---------------------------------------------------------

    def client(self, service: str, keys: Keys | None = None, region: str = REGION) -> Any:
        """A botocore client of this server (moto's own test keys, or `keys`)."""
        import botocore.session

        return botocore.session.Session().create_client(
            service, region_name=region, endpoint_url=self.endpoint,
            aws_access_key_id=keys.access_key_id if keys else "testing",
            aws_secret_access_key=keys.secret_access_key if keys else "testing")

    def user(self, name: str, policy: dict[str, Any] | None = None) -> Keys:
        """An IAM user with an access key (and an inline policy): an identity STS knows."""
        iam = self.client("iam")
        arn = iam.create_user(UserName=name)["User"]["Arn"]
        if policy is not None:
            import json

            iam.put_user_policy(UserName=name, PolicyName="access", PolicyDocument=json.dumps(policy))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        return Keys(key["AccessKeyId"], key["SecretAccessKey"], arn)

    def role(self, name: str, trusted: str) -> str:
        """A role that principal `trusted` (an ARN) may assume; its ARN."""
        import json

        trust = {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"AWS": trusted}, "Action": "sts:AssumeRole"}]}
        return str(self.client("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust))
                   ["Role"]["Arn"])

    def environment(self, keys: Keys, region: str = REGION) -> dict[str, str]:
        """The variables that make botocore (in this process or another) use this server
        with `keys`; no profile or config file of the machine's."""
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": keys.access_key_id,
                "AWS_SECRET_ACCESS_KEY": keys.secret_access_key, "AWS_REGION": region,
                "AWS_CONFIG_FILE": "/dev/null", "AWS_SHARED_CREDENTIALS_FILE": "/dev/null",
                "AWS_EC2_METADATA_DISABLED": "true"}

    # -- ECR ------------------------------------------------------------------------------

    def ecr_registry(self, endpoint: str, account: str = ACCOUNT, region: str = REGION) -> str:
        """ECR's registry of `account` in `region`, served at `endpoint` (http://HOST:PORT: the
        tests' OCI registry, where the user AWS logs in with ecr_password(account)); its host."""
        return self.ecr.add(account, region, endpoint)

    # -- EKS ------------------------------------------------------------------------------

    def add_eks_cluster(self, name: str, endpoint: str, ca_pem: bytes, region: str = REGION) -> str:
        """An EKS cluster whose DescribeCluster gives `endpoint` and `ca_pem` (the testbed's):
        created through moto's API, its endpoint and CA then set in moto's backend. Its ARN."""
        from moto.eks.models import eks_backends

        created = self.client("eks", region=region).create_cluster(
            name=name, roleArn=f"arn:aws:iam::{ACCOUNT}:role/eks-cluster",
            resourcesVpcConfig={"subnetIds": []})["cluster"]
        cluster = eks_backends[ACCOUNT][region].clusters[name]
        cluster.endpoint = endpoint
        cluster.certificate_authority = {"data": base64.b64encode(ca_pem).decode()}
        return str(created["arn"])
