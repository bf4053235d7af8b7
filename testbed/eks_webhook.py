"""The testbed's EKS authenticator: a token webhook that does what aws-iam-authenticator
does for an EKS cluster's API server.

The API server sends it every bearer token its own authenticators do not know (a
TokenReview, `--authentication-token-webhook-config-file`); it answers as EKS does:

- the token is `k8s-aws-v1.` + the URL-safe base64 (no padding) of a URL;
- the URL is a presigned STS GetCallerIdentity: the STS endpoint it trusts (here the
  tests' moto server), path `/`, no query parameter but Action=GetCallerIdentity,
  Version and the X-Amz-* of a SigV4 presigned URL (Algorithm, Credential, Date,
  Expires, SignedHeaders, Signature, Security-Token), each once; X-Amz-SignedHeaders
  includes `x-k8s-aws-id`; X-Amz-Date is less than 15 minutes old;
- it calls the URL with `x-k8s-aws-id: <its own cluster's name>`, so STS's signature
  check refuses a token made for another cluster, and takes the ARN STS answers;
- an assumed-role ARN is canonicalised to its role's ARN
  (arn:aws:sts::A:assumed-role/R/S -> arn:aws:iam::A:role/R) and looked up in the
  mapping (aws-auth's mapRoles / mapUsers: ARN -> username and groups; `{{AccountID}}`
  and `{{SessionName}}` in a username are filled in); an unmapped identity is refused.

Its settings (the cluster's name, the trusted STS endpoint, the mapping) are a JSON file
read at every review, written by `write_settings` (Testbed.configure_eks): until then
every token is refused. Decisions are logged to its component log, never a token.

It runs as a testbed component:
``python -m testbed.eks_webhook --port N --pki DIR --settings FILE``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import ssl
import sys
import urllib.error
import urllib.request
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from testbed.pki import load_pki

LOOPBACK = "127.0.0.1"
PATH = "/authenticate"
TOKEN_PREFIX = "k8s-aws-v1."
CLUSTER_ID_HEADER = "x-k8s-aws-id"
TOKEN_LIFETIME = timedelta(minutes=15)
STS_TIMEOUT_SECONDS = 10.0
ALLOWED_PARAMETERS = {"action", "version", "x-amz-algorithm", "x-amz-credential", "x-amz-date", "x-amz-expires",
                      "x-amz-security-token", "x-amz-signature", "x-amz-signedheaders"}
REQUIRED_PARAMETERS = ALLOWED_PARAMETERS - {"x-amz-security-token"}


class Refused(Exception):
    """The token does not authenticate anyone; the text says why (the API server logs it)."""


@dataclass(frozen=True)
class Settings:
    cluster: str
    sts_endpoint: str  # scheme://host:port of the STS the tokens must be for
    map_roles: list[dict[str, Any]] = field(default_factory=list)  # {rolearn, username, groups}
    map_users: list[dict[str, Any]] = field(default_factory=list)  # {userarn, username, groups}


@dataclass(frozen=True)
class Identity:
    arn: str
    canonical_arn: str
    account: str
    user_id: str
    session_name: str
    access_key_id: str


def write_settings(path: Path, settings: Settings) -> None:
    """The webhook's settings, replaced at once (a review never reads half a file)."""
    data = {"cluster": settings.cluster, "stsEndpoint": settings.sts_endpoint,
            "mapRoles": settings.map_roles, "mapUsers": settings.map_users}
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(data, indent=2))
    os.replace(partial, path)


def read_settings(path: Path) -> Settings:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise Refused("the testbed's EKS authenticator is not configured (Testbed.configure_eks)") from None
    return Settings(data["cluster"], data["stsEndpoint"], data.get("mapRoles") or [], data.get("mapUsers") or [])


# -- the token -----------------------------------------------------------------------


def presigned_url(token: str, settings: Settings, now: datetime) -> tuple[str, dict[str, str]]:
    """The token's URL and its query, checked as aws-iam-authenticator checks them."""
    if not token.startswith(TOKEN_PREFIX):
        raise Refused(f'token is missing expected "{TOKEN_PREFIX}" prefix')
    encoded = token[len(TOKEN_PREFIX):]
    try:
        url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    except (ValueError, UnicodeDecodeError) as err:
        raise Refused(f"the token is not base64 of a URL: {err}") from None
    parts, trusted = urlsplit(url), urlsplit(settings.sts_endpoint)
    if (parts.scheme, parts.netloc) != (trusted.scheme, trusted.netloc):
        raise Refused(f"unexpected STS endpoint {parts.scheme}://{parts.netloc} (trusted: {settings.sts_endpoint})")
    if parts.path not in ("", "/"):
        raise Refused(f"unexpected path in the pre-signed URL: {parts.path}")
    query = _query(parts.query)
    if query["action"] != "GetCallerIdentity":
        raise Refused(f"unexpected action parameter in the pre-signed URL: {query['action']}")
    if CLUSTER_ID_HEADER not in query["x-amz-signedheaders"].split(";"):
        raise Refused(f"client did not sign the {CLUSTER_ID_HEADER} header in the pre-signed URL")
    try:
        signed_at = datetime.strptime(query["x-amz-date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        int(query["x-amz-expires"])
    except ValueError:
        raise Refused("malformed X-Amz-Date or X-Amz-Expires in the pre-signed URL") from None
    if now > signed_at + TOKEN_LIFETIME:
        raise Refused("X-Amz-Date parameter is expired (15 minute expiration) " + query["x-amz-date"])
    return url, query


def _query(text: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for key, values in parse_qs(text, keep_blank_values=True).items():
        name = key.lower()
        if name not in ALLOWED_PARAMETERS:
            raise Refused(f"non-whitelisted query parameter {key!r}")
        if len(values) != 1 or name in found:
            raise Refused(f"query parameter {key!r} given more than once")
        found[name] = values[0]
    missing = sorted(REQUIRED_PARAMETERS - set(found))
    if missing:
        raise Refused(f"the pre-signed URL lacks {', '.join(missing)}")
    return found


# -- STS -------------------------------------------------------------------------------


def caller_identity(url: str, query: dict[str, str], cluster: str) -> Identity:
    """GET the presigned URL with our cluster's name in x-k8s-aws-id: STS checks the
    signature (so a token made for another cluster fails) and says whose it is."""
    request = urllib.request.Request(url, headers={CLUSTER_ID_HEADER: cluster, "Accept": "application/json"})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=STS_TIMEOUT_SECONDS) as response:
            body = response.read()
    except urllib.error.HTTPError as err:
        raise Refused(f"sts getCallerIdentity failed: HTTP {err.code}: {_sts_error(err.read())}") from None
    except (urllib.error.URLError, OSError) as err:
        raise Refused(f"sts getCallerIdentity failed: {err}") from None
    result = _sts_result(body)
    arn = result.get("Arn", "")
    if not arn:
        raise Refused("sts getCallerIdentity gave no ARN")
    canonical, session = canonical_arn(arn)
    return Identity(arn, canonical, result.get("Account", ""), result.get("UserId", ""), session,
                    query["x-amz-credential"].split("/")[0])


def _sts_result(body: bytes) -> dict[str, str]:
    """GetCallerIdentityResult's fields, from STS's JSON or XML answer."""
    try:
        data = json.loads(body)
        return dict(data["GetCallerIdentityResponse"]["GetCallerIdentityResult"])
    except (ValueError, KeyError, TypeError):
        pass
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        raise Refused("sts getCallerIdentity answered neither JSON nor XML") from None
    found = {}
    for element in root.iter():
        name = element.tag.rsplit("}", 1)[-1]
        if name in ("Arn", "Account", "UserId"):
            found[name] = (element.text or "").strip()
    return found


def _sts_error(body: bytes) -> str:
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError:
        return body.decode(errors="replace")[:200]
    texts = {element.tag.rsplit("}", 1)[-1]: (element.text or "").strip() for element in root.iter()}
    return f"{texts.get('Code', '')}: {texts.get('Message', '')}"


def canonical_arn(arn: str) -> tuple[str, str]:
    """(the ARN access is granted to, the session name): an assumed role's ARN becomes its
    role's (aws-iam-authenticator's arn.Canonicalize); users and roles stay as they are."""
    prefix, _, resource = arn.partition(":assumed-role/")
    if resource:
        role, _, session = resource.partition("/")
        partition_and_account = prefix.split(":")  # arn, partition, sts, "", account
        return (f"arn:{partition_and_account[1]}:iam::{partition_and_account[4]}:role/{role}", session)
    return arn, ""


# -- the mapping -----------------------------------------------------------------------


def user_for(identity: Identity, settings: Settings) -> dict[str, Any]:
    """The TokenReview's user for `identity`, from mapRoles / mapUsers."""
    entries = [(e.get("rolearn", ""), e) for e in settings.map_roles] + \
              [(e.get("userarn", ""), e) for e in settings.map_users]
    for arn, entry in entries:
        if arn.lower() == identity.canonical_arn.lower():
            username = (str(entry.get("username") or identity.canonical_arn)
                        .replace("{{AccountID}}", identity.account)
                        .replace("{{SessionName}}", identity.session_name))
            return {"username": username, "uid": f"aws-iam-authenticator:{identity.account}:{identity.user_id}",
                    "groups": list(entry.get("groups") or []),
                    "extra": {"arn": [identity.arn], "canonicalArn": [identity.canonical_arn],
                              "sessionName": [identity.session_name], "accessKeyId": [identity.access_key_id],
                              "principalId": [identity.user_id]}}
    raise Refused(f"ARN is not mapped: {identity.canonical_arn}")


def review(token: str, settings_path: Path, now: datetime | None = None) -> dict[str, Any]:
    """The TokenReview status for `token`."""
    try:
        settings = read_settings(settings_path)
        url, query = presigned_url(token, settings, now or datetime.now(UTC))
        identity = caller_identity(url, query, settings.cluster)
        user = user_for(identity, settings)
    except Refused as err:
        print(f"refused: {err}", flush=True)
        return {"authenticated": False, "error": str(err)}
    print(f"accepted: {identity.arn} as {user['username']} {user['groups']}", flush=True)
    return {"authenticated": True, "user": user}


# -- the server ------------------------------------------------------------------------


class ReviewHandler(BaseHTTPRequestHandler):
    settings_path: Path = Path()

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        if urlsplit(self.path).path != PATH:
            self._answer(404, {"message": "not found"})
            return
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            token = str(request["spec"]["token"])
            version = str(request.get("apiVersion") or "authentication.k8s.io/v1")
        except (ValueError, KeyError, TypeError):
            self._answer(400, {"message": "not a TokenReview"})
            return
        status = review(token, self.settings_path)
        self._answer(200, {"apiVersion": version, "kind": "TokenReview", "status": status})

    def _answer(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's name
        pass  # the decisions are logged; request lines would only repeat them


def write_apiserver_config(path: Path, port: int, ca_file: Path) -> Path:
    """The kubeconfig-format file the API server reads the webhook's address from."""
    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        f"clusters:\n- name: eks-authenticator\n  cluster:\n    server: https://{LOOPBACK}:{port}{PATH}\n"
        f"    certificate-authority: {ca_file}\n"
        "users:\n- name: kube-apiserver\n  user: {}\n"
        "contexts:\n- name: webhook\n  context: {cluster: eks-authenticator, user: kube-apiserver}\n"
        "current-context: webhook\n")
    return path


def serve(port: int, pki_dir: Path, settings_path: Path) -> None:
    pki = load_pki(pki_dir)
    ReviewHandler.settings_path = settings_path
    httpd = ThreadingHTTPServer((LOOPBACK, port), ReviewHandler)
    httpd.daemon_threads = True
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(str(pki.webhook.cert), str(pki.webhook.key))
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    print(f"reviewing EKS tokens on https://{LOOPBACK}:{port}{PATH}", flush=True)
    httpd.serve_forever()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m testbed.eks_webhook", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pki", type=Path, required=True, help="the testbed's certificates")
    parser.add_argument("--settings", type=Path, required=True, help="the JSON settings (write_settings)")
    args = parser.parse_args(argv)
    serve(args.port, args.pki, args.settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
