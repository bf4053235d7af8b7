"""The testbed's certificates chain to its CA and carry the names clients check."""

from __future__ import annotations

import base64
import ipaddress
from pathlib import Path

import yaml
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from testbed.pki import create_pki, write_kubeconfig


def _load(path: Path) -> x509.Certificate:
    return x509.load_pem_x509_certificate(path.read_bytes())


def _signed_by(cert: x509.Certificate, ca: x509.Certificate) -> bool:
    public_key = ca.public_key()
    assert isinstance(public_key, ec.EllipticCurvePublicKey)
    public_key.verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm))
    return cert.issuer == ca.subject


def test_serving_certificates_name_loopback_and_chain_to_the_ca(tmp_path: Path) -> None:
    pki = create_pki(tmp_path)
    ca = _load(pki.ca.cert)
    apiserver = _load(pki.apiserver.cert)
    kwok = _load(pki.kwok.cert)

    assert _signed_by(apiserver, ca) and _signed_by(kwok, ca)
    names = apiserver.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
    assert "kubernetes.default.svc" in names.get_values_for_type(x509.DNSName)
    usage = apiserver.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert ExtendedKeyUsageOID.SERVER_AUTH in usage


def test_admin_client_is_a_cluster_admin(tmp_path: Path) -> None:
    pki = create_pki(tmp_path)
    admin = _load(pki.admin.cert)

    assert _signed_by(admin, _load(pki.ca.cert))
    organizations = [a.value for a in admin.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
    assert organizations == ["system:masters"]  # the group RBAC binds to cluster-admin
    usage = admin.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert ExtendedKeyUsageOID.CLIENT_AUTH in usage


def test_kubeconfig_embeds_the_ca_and_admin_credentials(tmp_path: Path) -> None:
    pki = create_pki(tmp_path / "pki")
    path = write_kubeconfig(tmp_path / "kubeconfig", "https://127.0.0.1:6443", pki)
    config = yaml.safe_load(path.read_text())

    cluster = config["clusters"][0]["cluster"]
    user = config["users"][0]["user"]
    assert cluster["server"] == "https://127.0.0.1:6443"
    assert base64.b64decode(cluster["certificate-authority-data"]) == pki.ca.cert.read_bytes()
    assert base64.b64decode(user["client-key-data"]) == pki.admin.key.read_bytes()
    assert config["current-context"] == config["contexts"][0]["name"]
