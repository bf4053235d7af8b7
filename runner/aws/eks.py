"""EKS login in-process: what `aws eks update-kubeconfig` and `aws eks get-token` give
kubectl, without the aws CLI (docs/eks.md).

- eks:DescribeCluster gives the API server's endpoint and CA;
- the bearer token is a presigned STS GetCallerIdentity URL for the regional STS
  endpoint, with the `x-k8s-aws-id` header (the cluster's name) among the signed
  headers, as `k8s-aws-v1.` + its URL-safe base64 without padding. EKS's authenticator
  calls STS with it (and with its own cluster's name in that header, so a token made
  for another cluster does not verify) and maps the identity STS answers to a
  Kubernetes user through the cluster's access entries (or aws-auth);
- an optional role is assumed first (sts:AssumeRole, session name `deploy-runner`),
  its credentials renewed by botocore before they run out; the token's expiry and its
  renewal on a 401 are runner.kube.credentials' (as for an exec plugin's answer).

The credentials are the environment's, as botocore finds them: AWS_* variables, web
identity (GitHub OIDC via AWS_ROLE_ARN and AWS_WEB_IDENTITY_TOKEN_FILE), a profile,
SSO, a container or instance role, a Lambda function's role. AWS_ENDPOINT_URL and
AWS_ENDPOINT_URL_STS / AWS_ENDPOINT_URL_EKS are honoured (the tests point them at moto).

botocore is imported here only, when an EKS cluster is used: nothing else of deploy-runner
needs it, and it is an extra (`pip install 'deploy-runner[aws]'`).
"""

from __future__ import annotations

import base64
import os
import threading
import time
from collections.abc import Callable
from typing import Any

from runner.errors import RunnerError

TOKEN_PREFIX = "k8s-aws-v1."
CLUSTER_ID_HEADER = "x-k8s-aws-id"
# What `aws eks get-token` writes into the URL. The authenticator accepts a token for 15
# minutes from its X-Amz-Date whatever this says; aws-cli reports its tokens as expiring
# after 14 minutes, and so do we: renewed a minute before the server stops taking them.
PRESIGNED_URL_SECONDS = 60
TOKEN_LIFETIME_SECONDS = 14 * 60
ROLE_SESSION_NAME = "deploy-runner"
EXTRA_HINT = "pip install 'deploy-runner[aws]'"


class EksError(RunnerError):
    """The EKS login failed (credentials, region, DescribeCluster, AssumeRole): one line."""


class EksConnection:
    """Where the cluster is and how to prove who we are to it."""

    __slots__ = ("name", "region", "endpoint", "ca_data", "token")

    def __init__(self, name: str, region: str, endpoint: str, ca_data: bytes, token: EksToken) -> None:
        self.name, self.region, self.endpoint, self.ca_data, self.token = name, region, endpoint, ca_data, token

    def __repr__(self) -> str:
        return f"EksConnection(name={self.name!r}, region={self.region!r}, endpoint={self.endpoint!r})"


def connect(name: str, region: str = "", role_arn: str = "") -> EksConnection:
    """The endpoint, CA and token source of EKS cluster `name` (DescribeCluster, with the
    role's credentials when `role_arn` is given). Raises EksError, in one line."""
    aws = AwsSession(region, role_arn, cluster=name)
    endpoint, ca_data = aws.describe_cluster(name)
    return EksConnection(name, aws.region, endpoint, ca_data, EksToken(aws, name))


def _botocore() -> Any:
    """botocore's modules, or the one line that says how to get them."""
    try:
        import botocore.config
        import botocore.credentials
        import botocore.exceptions
        import botocore.session
    except ImportError as err:
        raise EksError(f"EKS login needs the AWS SDK (botocore), which is not installed: {EXTRA_HINT}") from err
    return botocore


class AwsSession:
    """botocore's session for one region, with the environment's credentials or, given a
    role, the role's (assumed with them; botocore renews them before they expire)."""

    def __init__(self, region: str = "", role_arn: str = "", *, cluster: str = "") -> None:
        botocore = _botocore()
        self._errors = botocore.exceptions
        self.cluster = cluster
        self.role_arn = role_arn
        base = botocore.session.Session()
        # AWS_REGION first, as aws-cli v2 reads it (botocore alone reads AWS_DEFAULT_REGION
        # and the profile's region).
        self.region = ""
        self.region = (region or os.environ.get("AWS_REGION")
                       or self.call(lambda: base.get_config_variable("region"), "the AWS configuration") or "")
        if not self.region:
            raise self._error("no AWS region: give --eks-region (or the spec's eks.region), or set AWS_REGION")
        # Always the regional STS endpoint: the one EKS's authenticator expects in the token.
        base.set_config_variable("sts_regional_endpoints", "regional")
        self._config = botocore.config.Config(region_name=self.region, retries={"mode": "standard"})
        if self.call(base.get_credentials, "the AWS credentials") is None:
            raise self._error("no AWS credentials found (looked for AWS_* variables, web identity, a "
                              "profile, SSO, and a container, instance or function role)")
        self.session = _assumed_role_session(botocore, base, self.region, role_arn) if role_arn else base
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def client(self, service: str) -> Any:
        with self._lock:
            if service not in self._clients:
                client = self.session.create_client(service, config=self._config)
                if service == "sts":
                    _sign_cluster_id(client)
                self._clients[service] = client
            return self._clients[service]

    def describe_cluster(self, name: str) -> tuple[str, bytes]:
        """(endpoint URL, CA certificate PEM) of cluster `name`."""
        found = self.call(lambda: self.client("eks").describe_cluster(name=name), "eks:DescribeCluster")
        cluster = found.get("cluster") or {}
        endpoint = str(cluster.get("endpoint") or "")
        if not endpoint:
            raise self._error(f"the cluster has no API endpoint yet (status {cluster.get('status') or 'unknown'})")
        try:
            ca = base64.b64decode(str((cluster.get("certificateAuthority") or {}).get("data") or ""), validate=True)
        except ValueError as err:
            raise self._error("DescribeCluster gave a certificate authority that is not base64") from err
        return endpoint, ca

    def caller_arn(self) -> str:
        """Who these credentials are (sts:GetCallerIdentity); "" when that cannot be had
        quickly: it only adds to an error message, so one short try."""
        from botocore.config import Config

        brief = self._config.merge(Config(connect_timeout=5, read_timeout=5, retries={"total_max_attempts": 1}))
        try:
            return str(self.session.create_client("sts", config=brief).get_caller_identity().get("Arn") or "")
        except (self._errors.BotoCoreError, self._errors.ClientError):
            return ""

    def call(self, request: Callable[[], Any], action: str) -> Any:
        """`request()`, its failure turned into one line naming `action`."""
        try:
            return request()
        except self._errors.NoCredentialsError as err:
            raise self._error(f"no AWS credentials found ({err})") from err
        except self._errors.ClientError as err:
            raise self._error(self._refusal(action, err)) from err
        except self._errors.BotoCoreError as err:
            raise self._error(f"{action}: {err}") from err

    def _refusal(self, action: str, err: Any) -> str:
        error = err.response.get("Error") or {}
        code, message = str(error.get("Code") or "error"), _one_line(str(error.get("Message") or ""))
        operation = str(getattr(err, "operation_name", "") or "")
        if operation == "AssumeRole":
            return f"sts:AssumeRole of {self.role_arn} was refused: {code}: {message}"
        if code == "ResourceNotFoundException":
            return f"no such cluster in {self.region} ({action}: {code}: {message})"
        return f"{action} was refused: {code}: {message}"

    def _error(self, text: str) -> EksError:
        text = _one_line(text)
        where = f'EKS cluster "{self.cluster}"' + (f" ({self.region})" if self.region else "")
        return EksError(f"{where}: {text}")


def _one_line(text: str, limit: int = 400) -> str:
    """AWS's words on one line (an answer botocore could not parse arrives whole, as XML)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _assumed_role_session(botocore: Any, base: Any, region: str, role_arn: str) -> Any:
    """A botocore session whose credentials are `role_arn`'s, assumed with `base`'s through
    the regional STS endpoint, and renewed by botocore before they run out."""
    from functools import partial

    credentials = botocore.credentials
    fetcher = credentials.AssumeRoleCredentialFetcher(
        client_creator=partial(base.create_client, region_name=region),
        source_credentials=base.get_credentials(), role_arn=role_arn,
        extra_args={"RoleSessionName": ROLE_SESSION_NAME})
    assumed = credentials.DeferredRefreshableCredentials(method="assume-role",
                                                         refresh_using=fetcher.fetch_credentials)

    class AssumedRole(credentials.CredentialProvider):
        METHOD = CANONICAL_NAME = "deploy-runner-assume-role"

        def load(self) -> Any:
            return assumed

    session = botocore.session.Session()
    session.set_config_variable("sts_regional_endpoints", "regional")
    session.get_component("credential_provider").insert_before("env", AssumedRole())
    return session


class EksToken:
    """The token source of one cluster (runner.kube.kubeconfig.ConnectionConfig.token_source):
    `fetch()` makes a token as `aws eks get-token` does; runner.kube.credentials keeps it
    until `expires` and asks again after a 401."""

    def __init__(self, aws: AwsSession, cluster: str, clock: Callable[[], float] = time.time) -> None:
        self.aws = aws
        self.cluster = cluster
        self.clock = clock
        self._identity: str | None = None

    def fetch(self) -> tuple[str, float]:
        """(token, the time by which to make a new one)."""
        issued = self.clock()
        url = self.aws.call(lambda: presigned_url(self.aws.client("sts"), self.cluster), "sts:GetCallerIdentity")
        return token_from_url(url), issued + TOKEN_LIFETIME_SECONDS

    def refused(self) -> str:
        """What a 401 means here: whose token for which cluster the API server refused."""
        if self._identity is None:
            self._identity = self.aws.caller_arn()
        who = f" (AWS identity {self._identity})" if self._identity else ""
        return (f'the API server refused the EKS token for cluster "{self.cluster}"{who}: the identity needs '
                "an access entry (or aws-auth mapping) on the cluster, and this machine's clock must be right")

    def __repr__(self) -> str:  # never the token
        return f"EksToken(cluster={self.cluster!r})"


def presigned_url(sts: Any, cluster: str) -> str:
    """A GET of sts:GetCallerIdentity, presigned with header x-k8s-aws-id: `cluster` signed
    (`sts`: a client of AwsSession.client, which knows that header)."""
    return str(sts.generate_presigned_url("get_caller_identity", Params={CLUSTER_ID_HEADER: cluster},
                                          ExpiresIn=PRESIGNED_URL_SECONDS, HttpMethod="GET"))


def _sign_cluster_id(sts: Any) -> None:
    """What aws-cli's get-token does to an STS client: botocore hands the x-k8s-aws-id
    parameter from a GetCallerIdentity call to the request's context, and from there to a
    header before the request is signed (so the header is among X-Amz-SignedHeaders)."""
    sts.meta.events.register("provide-client-params.sts.GetCallerIdentity", _cluster_id_to_context)
    sts.meta.events.register("before-sign.sts.GetCallerIdentity", _cluster_id_header)


def _cluster_id_to_context(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
    if CLUSTER_ID_HEADER in params:
        context[CLUSTER_ID_HEADER] = params.pop(CLUSTER_ID_HEADER)


def _cluster_id_header(request: Any, **_: Any) -> None:
    if CLUSTER_ID_HEADER in request.context:
        request.headers[CLUSTER_ID_HEADER] = request.context[CLUSTER_ID_HEADER]


def token_from_url(url: str) -> str:
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")
