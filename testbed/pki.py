"""Certificates and keys for a throwaway control plane on loopback.

One CA signs everything: the apiserver's, kwok's and the EKS token webhook's
serving certificates and an admin client certificate (group system:masters) that every component and
the tests use. A separate key signs service-account tokens.
"""

from __future__ import annotations

import base64
import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

_LOOPBACK = ipaddress.ip_address("127.0.0.1")
# The first address of the service range the apiserver is given (kubernetes.default).
_SERVICE_IP = ipaddress.ip_address("10.96.0.1")
_VALIDITY = datetime.timedelta(days=7)
_APISERVER_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)


@dataclass(frozen=True)
class KeyPair:
    cert: Path
    key: Path


@dataclass(frozen=True)
class Pki:
    """Paths of every file the components are started with."""

    ca: KeyPair
    apiserver: KeyPair
    kwok: KeyPair
    admin: KeyPair
    service_account_key: Path
    service_account_pub: Path
    webhook: KeyPair  # the EKS token webhook (testbed.eks_webhook)


def create_pki(directory: Path) -> Pki:
    directory.mkdir(parents=True, exist_ok=True)
    ca_key = _new_key()
    ca_cert = _ca_certificate(ca_key)
    ca = _write(directory, "ca", ca_cert, ca_key)
    apiserver = _issue(directory, "apiserver", "kube-apiserver", ca_cert, ca_key, server=True,
                       dns=_APISERVER_NAMES, ips=(_LOOPBACK, _SERVICE_IP))
    kwok = _issue(directory, "kwok", "kwok", ca_cert, ca_key, server=True,
                  dns=("localhost",), ips=(_LOOPBACK,))
    admin = _issue(directory, "admin", "testbed-admin", ca_cert, ca_key, server=False,
                   organization="system:masters")
    sa_key, sa_pub = _service_account_keys(directory)
    webhook = _issue(directory, "eks-webhook", "eks-webhook", ca_cert, ca_key, server=True,
                     dns=("localhost",), ips=(_LOOPBACK,))
    return Pki(ca, apiserver, kwok, admin, sa_key, sa_pub, webhook)


def load_pki(directory: Path) -> Pki:
    """The Pki create_pki wrote to `directory` (for a component started with its path)."""

    def pair(stem: str) -> KeyPair:
        return KeyPair(directory / f"{stem}.crt", directory / f"{stem}.key")

    return Pki(pair("ca"), pair("apiserver"), pair("kwok"), pair("admin"),
               directory / "sa.key", directory / "sa.pub", pair("eks-webhook"))


def _new_key() -> ec.EllipticCurvePrivateKey:
    # P-256 keys are generated instantly, unlike RSA; every component accepts them.
    return ec.generate_private_key(ec.SECP256R1())


def _name(common_name: str, organization: str | None = None) -> x509.Name:
    attributes = [x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    if organization:
        attributes.insert(0, x509.NameAttribute(NameOID.ORGANIZATION_NAME, organization))
    return x509.Name(attributes)


def _builder(subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))  # tolerate small clock skew
        .not_valid_after(now + _VALIDITY)
    )


def _ca_certificate(key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    name = _name("deploy-runner-testbed-ca")
    return (
        _builder(name, name, key.public_key())
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, content_commitment=False, key_encipherment=False,
                data_encipherment=False, key_agreement=False, key_cert_sign=True,
                crl_sign=True, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .sign(key, hashes.SHA256())
    )


def _issue(
    directory: Path,
    stem: str,
    common_name: str,
    ca_cert: x509.Certificate,
    ca_key: ec.EllipticCurvePrivateKey,
    *,
    server: bool,
    dns: tuple[str, ...] = (),
    ips: tuple[ipaddress.IPv4Address | ipaddress.IPv6Address, ...] = (),
    organization: str | None = None,
) -> KeyPair:
    key = _new_key()
    usage = ExtendedKeyUsageOID.SERVER_AUTH if server else ExtendedKeyUsageOID.CLIENT_AUTH
    builder = (
        _builder(_name(common_name, organization), ca_cert.subject, key.public_key())
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
    )
    if dns or ips:
        alt_names = [x509.DNSName(d) for d in dns] + [x509.IPAddress(i) for i in ips]
        builder = builder.add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
    return _write(directory, stem, builder.sign(ca_key, hashes.SHA256()), key)


def _write(directory: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey) -> KeyPair:
    pair = KeyPair(directory / f"{stem}.crt", directory / f"{stem}.key")
    pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pair.key.write_bytes(_private_pem(key))
    pair.key.chmod(0o600)
    return pair


def _private_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _service_account_keys(directory: Path) -> tuple[Path, Path]:
    # ECDSA P-256 (tokens signed ES256): accepted by Kubernetes and far quicker to make than RSA.
    key = _new_key()
    private, public = directory / "sa.key", directory / "sa.pub"
    private.write_bytes(_private_pem(key))
    private.chmod(0o600)
    public.write_bytes(
        key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    )
    return private, public


def write_kubeconfig(path: Path, server: str, pki: Pki) -> Path:
    """An admin kubeconfig with the certificates embedded, usable from anywhere."""
    def b64(file: Path) -> str:
        return base64.b64encode(file.read_bytes()).decode()

    path.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters:\n- name: testbed\n  cluster:\n"
        f"    server: {server}\n    certificate-authority-data: {b64(pki.ca.cert)}\n"
        "users:\n- name: testbed-admin\n  user:\n"
        f"    client-certificate-data: {b64(pki.admin.cert)}\n"
        f"    client-key-data: {b64(pki.admin.key)}\n"
        "contexts:\n- name: testbed\n  context:\n    cluster: testbed\n    user: testbed-admin\n"
        "current-context: testbed\n"
    )
    path.chmod(0o600)
    return path
