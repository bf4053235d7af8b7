"""Request credentials as client-go sets them: tokens (and token files that rotate),
impersonation headers, exec credential plugins, legacy auth-providers."""

from __future__ import annotations

import base64
import json
import sys
import time
from pathlib import Path

import pytest

from runner.kube import credentials as credentials_module
from runner.kube.credentials import CredentialError, Credentials
from runner.kube.kubeconfig import ConnectionConfig


def config(**fields) -> ConnectionConfig:
    return ConnectionConfig(server="https://k:6443", **fields)


def plugin(tmp_path: Path, status: dict | None, *, exit_code: int = 0,
           api_version: str = "client.authentication.k8s.io/v1") -> dict:
    """An exec credential plugin (a small Python script) and its kubeconfig `exec` entry;
    it counts its runs in runs.txt and records KUBERNETES_EXEC_INFO."""
    script = tmp_path / "plugin.py"
    answer = {"kind": "ExecCredential", "apiVersion": api_version, "status": status}
    script.write_text(
        "import json, os, sys\n"
        f"runs = {str(tmp_path / 'runs.txt')!r}\n"
        "open(runs, 'a').write('run\\n')\n"
        f"open({str(tmp_path / 'info.json')!r}, 'w').write(os.environ['KUBERNETES_EXEC_INFO'])\n"
        f"print(json.dumps({answer!r}))\n"
        f"sys.exit({exit_code})\n")
    return {"apiVersion": api_version, "command": sys.executable, "args": [str(script)],
            "interactiveMode": "Never", "provideClusterInfo": True}


def runs(tmp_path: Path) -> int:
    return len((tmp_path / "runs.txt").read_text().splitlines())


def test_bearer_token_and_impersonation_headers():
    creds = Credentials(config(token="t0k", impersonate_user="jane", impersonate_groups=("dev", "ops"),
                               impersonate_extra=(("scopes", ("a", "b")),)))
    assert creds.headers() == [("Impersonate-User", "jane"), ("Impersonate-Group", "dev"),
                               ("Impersonate-Group", "ops"), ("Impersonate-Extra-scopes", "a"),
                               ("Impersonate-Extra-scopes", "b"), ("Authorization", "Bearer t0k")]


def test_basic_auth():
    creds = Credentials(config(username="admin", password="pw"))
    assert creds.headers() == [("Authorization", f"Basic {base64.b64encode(b'admin:pw').decode()}")]


def test_a_token_file_is_read_again_once_it_may_have_rotated(tmp_path, monkeypatch):
    token = tmp_path / "token"
    token.write_text("first\n")
    creds = Credentials(config(token_file=str(token)))
    assert creds.headers() == [("Authorization", "Bearer first")]
    token.write_text("second")
    assert creds.headers() == [("Authorization", "Bearer first")]  # cached for a minute, as client-go
    monkeypatch.setattr(credentials_module, "TOKEN_FILE_REREAD_SECONDS", 0.0)
    assert creds.headers() == [("Authorization", "Bearer second")]
    token.unlink()
    assert creds.headers() == [("Authorization", "Bearer second")]  # the last good token stays


def test_exec_plugin_token_is_cached_until_it_expires(tmp_path):
    expires = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    creds = Credentials(config(exec_spec=plugin(tmp_path, {"token": "exec-token", "expirationTimestamp": expires}),
                               ca_data=b"CA"))
    assert creds.headers() == [("Authorization", "Bearer exec-token")]
    assert creds.headers() == [("Authorization", "Bearer exec-token")]
    assert runs(tmp_path) == 1
    creds.unauthorized()  # a 401: the next request runs the plugin again
    creds.headers()
    assert runs(tmp_path) == 2
    info = json.loads((tmp_path / "info.json").read_text())
    assert info["spec"]["interactive"] is False
    assert info["spec"]["cluster"]["server"] == "https://k:6443"
    assert info["spec"]["cluster"]["certificate-authority-data"] == base64.b64encode(b"CA").decode()


def test_exec_plugin_that_returns_a_client_certificate(tmp_path):
    creds = Credentials(config(exec_spec=plugin(tmp_path, {"clientCertificateData": "CERT",
                                                          "clientKeyData": "KEY"})))
    assert creds.client_certificate() == (b"CERT", b"KEY")
    assert creds.headers() == []  # no token: the certificate is the identity


def test_exec_plugin_is_not_run_when_a_token_is_given(tmp_path):
    creds = Credentials(config(token="flag", exec_spec=plugin(tmp_path, {"token": "exec"})))
    assert creds.headers() == [("Authorization", "Bearer flag")]
    assert not (tmp_path / "runs.txt").exists()


@pytest.mark.parametrize(("status", "exit_code", "message"), [
    ({"token": "x"}, 3, "getting credentials: exec: executable .* failed with exit code 3"),
    ({}, 0, "getting credentials: exec plugin didn't return a token or cert/key pair"),
    ({"clientCertificateData": "C"}, 0, "exec plugin returned only certificate or key, not both"),
    (None, 0, "exec plugin didn't return a status field"),
])
def test_exec_plugin_failures_in_client_go_words(tmp_path, status, exit_code, message):
    creds = Credentials(config(exec_spec=plugin(tmp_path, status, exit_code=exit_code)))
    with pytest.raises(CredentialError, match=message):
        creds.headers()


def test_exec_plugin_not_installed_says_so_with_its_hint(tmp_path):
    spec = {**plugin(tmp_path, {"token": "x"}), "command": "no-such-plugin", "installHint": "brew install it"}
    with pytest.raises(CredentialError) as raised:
        Credentials(config(exec_spec=spec)).headers()
    text = str(raised.value)
    assert text.startswith("getting credentials: exec: executable no-such-plugin not found\n")
    assert text.endswith("\n\nbrew install it")


def test_exec_plugin_answering_another_api_version(tmp_path):
    spec = {**plugin(tmp_path, {"token": "x"}, api_version="client.authentication.k8s.io/v1beta1"),
            "apiVersion": "client.authentication.k8s.io/v1"}
    with pytest.raises(CredentialError, match="plugin returned version client.authentication.k8s.io/v1beta1"):
        Credentials(config(exec_spec=spec)).headers()


def test_exec_plugin_with_a_removed_api_version():
    with pytest.raises(CredentialError, match='invalid apiVersion "client.authentication.k8s.io/v1alpha1"'):
        Credentials(config(exec_spec={"apiVersion": "client.authentication.k8s.io/v1alpha1", "command": "x"}))


def jwt(claims: dict) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


def test_oidc_id_token_is_used_while_valid():
    token = jwt({"exp": time.time() + 600})
    creds = Credentials(config(auth_provider={"name": "oidc", "config": {"id-token": token}}))
    assert creds.headers() == [("Authorization", f"Bearer {token}")]


def test_an_expired_oidc_id_token_says_how_to_refresh_it():
    creds = Credentials(config(auth_provider={"name": "oidc", "config": {"id-token": jwt({"exp": 1})}}))
    with pytest.raises(CredentialError, match="has expired .* run any kubectl command to refresh it"):
        creds.headers()


def test_removed_auth_providers_name_their_replacement():
    with pytest.raises(CredentialError, match='Please use the "gke-gcloud-auth-plugin"'):
        Credentials(config(auth_provider={"name": "gcp"}))
    with pytest.raises(CredentialError, match='no Auth Provider found for name "keystone"'):
        Credentials(config(auth_provider={"name": "keystone"}))


def test_a_401_runs_the_exec_plugin_again_and_the_request_is_sent_once_more(tmp_path):
    """The transport's retry after a 401 (runner.kube.transport) relies on this: True when
    a renewed credential may cure it, False for a static one."""
    creds = Credentials(config(exec_spec=plugin(tmp_path, {"token": "exec-token"})))
    creds.headers()
    assert creds.unauthorized() is True
    creds.headers()
    assert runs(tmp_path) == 2
    assert Credentials(config(token="static")).unauthorized() is False
