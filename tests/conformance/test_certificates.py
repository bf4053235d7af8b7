"""Certificates from Sprig's functions (genCA, genSelfSignedCert, genSignedCert and their
WithKey forms, buildCustomCert) against the ones Helm 4.1.4 makes from the same template.

Keys, serial numbers, times and signatures are random, so certificates are compared by
their DER structure: the tag of every element of the TBSCertificate (string types of the
name attributes included: crypto/x509 writes PrintableString or UTF8String by the
characters), and, through `cryptography`, every name attribute with its string type,
every extension with its value (key identifiers aside), the signature algorithm, the key
type and size and the validity period. A child's issuer must be its CA's subject, byte
for byte (Go copies the raw subject). Helm renders the chart in the test run.
"""

from __future__ import annotations

import base64
import subprocess
from typing import Any

import pytest
import yaml

from testbed.helm import helm_binary
from tests.conformance.harness import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:Attribute.s length:UserWarning")  # ca-long, parsed here
KEY_ID_EXTENSIONS = {"2.5.29.14", "2.5.29.35"}  # SubjectKeyIdentifier, AuthorityKeyIdentifier
TIME_TAGS = {0x17, 0x18}  # UTCTime, GeneralizedTime

# name -> a template expression giving a certificate (a `$ca`, `$ecca` and `$edca` are in scope)
CASES = {
    "ca-printable": 'genCA "my-ca" 365',
    "ca-every-printable-punctuation": "genCA \"A z 0 9 ' ( ) + , - . / : = ?\" 30",
    "ca-asterisk": 'genCA "*.example.com" 30',
    "ca-ampersand": 'genCA "a&b" 30',
    "ca-underscore": 'genCA "my_ca" 30',
    "ca-at": 'genCA "ops@example.com" 30',
    "ca-non-ascii": 'genCA "cå é" 30',
    "ca-long": 'genCA (repeat 80 "x") 30',
    "ca-empty": 'genCA "" 30',
    "ca-with-ecdsa-key": '$ecca',
    "ca-with-ed25519-key": '$edca',
    "self-signed": 'genSelfSignedCert "self" (list "10.0.0.1" "::1") (list "a.example" "b") 30',
    "self-signed-utf8": 'genSelfSignedCert "sélf" nil nil 30',
    "self-signed-with-key": 'genSelfSignedCertWithKey "self" nil (list "k") 30 (genPrivateKey "ecdsa")',
    "signed-by-printable-ca": 'genSignedCert "web.example.com" (list "10.0.0.2") (list "web") 30 $ca',
    "signed-utf8-by-printable-ca": 'genSignedCert "web&x" nil nil 30 $ca',
    "signed-empty-by-utf8-ca": 'genSignedCert "" nil nil 30 (genCA "cå" 30)',
    "signed-with-key-by-ecdsa-ca": 'genSignedCertWithKey "w" nil nil 30 $ecca (genPrivateKey "ecdsa")',
    "signed-with-ed25519-key-by-ed25519-ca": 'genSignedCertWithKey "w" nil nil 30 $edca (genPrivateKey "ed25519")',
    "signed-by-custom-ca": 'genSignedCert "c" nil nil 30 (buildCustomCert ($ca.Cert | b64enc) ($ca.Key | b64enc))',
}
# the CA a case's certificate was signed by (its issuer must be that CA's subject, raw)
SIGNED_BY = {"signed-by-printable-ca": "ca", "signed-utf8-by-printable-ca": "ca",
             "signed-with-key-by-ecdsa-ca": "ecca", "signed-with-ed25519-key-by-ed25519-ca": "edca",
             "signed-by-custom-ca": "ca"}


def _template() -> str:
    lines = [
        '{{- $ca := genCA "my-ca" 365 }}',
        '{{- $ecca := genCAWithKey "ec-ca" 365 (genPrivateKey "ecdsa") }}',
        '{{- $edca := genCAWithKey "ed-ca" 365 (genPrivateKey "ed25519") }}',
        'ca: {{ $ca.Cert | b64enc }}',
        'ecca: {{ $ecca.Cert | b64enc }}',
        'edca: {{ $edca.Cert | b64enc }}',
    ]
    lines += [f"{name}: {{{{ ({expr}).Cert | b64enc }}}}" for name, expr in CASES.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Any, Any]]:
    """name -> (Helm's certificate, ours), both parsed."""
    from cryptography import x509

    chart = tmp_path_factory.mktemp("certs") / "certs"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: certs\nversion: 0.1.0\n")
    (chart / "templates" / "certs.yaml").write_text(_template())
    helm = subprocess.run([str(helm_binary()), "template", "r", str(chart)], capture_output=True,
                          text=True, check=False, timeout=300)
    assert helm.returncode == 0, helm.stderr
    out, err, code = run_cli(["template", "r", str(chart)])
    assert code == 0, err

    def parse(stdout: str) -> dict[str, Any]:
        doc = yaml.safe_load(stdout.split("\n---\n", 1)[-1].split("\n", 1)[1])
        return {k: x509.load_pem_x509_certificate(base64.b64decode(v)) for k, v in doc.items()}

    helm_certs, our_certs = parse(helm.stdout), parse(out.decode())
    return {name: (helm_certs[name], our_certs[name]) for name in helm_certs}


# ------------------------------------------------------------------ DER


def _elements(der: bytes, start: int = 0, end: int | None = None) -> list[tuple[int, int, int, int]]:
    """The TLV elements between start and end: (tag, header start, content start, content end)."""
    end = len(der) if end is None else end
    found, at = [], start
    while at < end:
        tag, length, content = der[at], der[at + 1], at + 2
        if length & 0x80:
            count = length & 0x7F
            length, content = int.from_bytes(der[content:content + count], "big"), content + count
        found.append((tag, at, content, content + length))
        at = content + length
    return found


def _skeleton(der: bytes, start: int = 0, end: int | None = None, key_ids: bool = False) -> list[Any]:
    """Every element's tag, nested; primitive contents kept where they are not random."""
    shape: list[Any] = []
    for tag, _, content, stop in _elements(der, start, end):
        if tag & 0x20:  # constructed
            inner = der[content:stop]
            shape.append((tag, _skeleton(der, content, stop, key_ids or _names_key_id(inner))))
        elif tag == 0x04 and not key_ids and _is_der(der[content:stop]):  # an extension's value
            shape.append((tag, _skeleton(der, content, stop)))
        elif tag in (0x02, 0x03, *TIME_TAGS) or key_ids:  # serial, keys, signatures, times, key ids
            shape.append((tag, "*"))
        else:
            shape.append((tag, der[content:stop]))
    return shape


def _names_key_id(inner: bytes) -> bool:
    """An Extension SEQUENCE whose OID is a key identifier's (its value depends on the key)."""
    first = _elements(inner)[:1]
    if not first or first[0][0] != 0x06:
        return False
    return _oid_text(inner[first[0][2]:first[0][3]]) in KEY_ID_EXTENSIONS


def _oid_text(body: bytes) -> str:
    parts, value = [body[0] // 40, body[0] % 40], 0
    for byte in body[1:]:
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            parts.append(value)
            value = 0
    return ".".join(map(str, parts))


def _is_der(data: bytes) -> bool:
    try:
        elements = _elements(data)
    except IndexError:
        return False
    return bool(elements) and elements[-1][3] == len(data) and data[0] in (0x30, 0x03, 0x04)


def _tbs_fields(cert: Any) -> list[tuple[int, int, int, int]]:
    tbs = cert.tbs_certificate_bytes
    (_, _, content, stop), = _elements(tbs)
    return _elements(tbs, content, stop)


def _raw_name(cert: Any, which: str) -> bytes:
    """The issuer or subject Name exactly as encoded in the certificate."""
    fields = _tbs_fields(cert)
    index = {"issuer": 3, "subject": 5}[which]  # [0] version, serial, signature, issuer, validity, subject
    _, header, _, stop = fields[index]
    return cert.tbs_certificate_bytes[header:stop]


# ------------------------------------------------------------------ cryptography's view


def _names(name: Any) -> list[tuple[str, str, str]]:
    return [(a.oid.dotted_string, a.value, a._type.name) for a in name]


def _extensions(cert: Any) -> list[tuple[str, bool, Any]]:
    out = []
    for ext in cert.extensions:
        value = "key id" if ext.oid.dotted_string in KEY_ID_EXTENSIONS else ext.value
        out.append((ext.oid.dotted_string, ext.critical, value))
    return out


def _view(cert: Any) -> dict[str, Any]:
    key = cert.public_key()
    return {
        "version": cert.version,
        "subject": _names(cert.subject),
        "issuer": _names(cert.issuer),
        "extensions": _extensions(cert),
        "signature": cert.signature_algorithm_oid.dotted_string,
        "key": (type(key).__name__.lstrip("_"), getattr(key, "key_size", None)),
        "days": (cert.not_valid_after_utc - cert.not_valid_before_utc).days,
        "serial bits <= 128": cert.serial_number.bit_length() <= 128,
    }


# ------------------------------------------------------------------ tests


@pytest.mark.parametrize("name", ["ca", "ecca", "edca", *CASES])
def test_certificate_structure_is_helms(name: str, rendered: dict[str, tuple[Any, Any]]) -> None:
    helm, ours = rendered[name]
    assert _skeleton(ours.tbs_certificate_bytes) == _skeleton(helm.tbs_certificate_bytes)
    assert _view(ours) == _view(helm)


@pytest.mark.parametrize("name", sorted(SIGNED_BY))
def test_issuer_is_the_ca_subject_byte_for_byte(name: str, rendered: dict[str, tuple[Any, Any]]) -> None:
    for side in (0, 1):
        child, ca = rendered[name][side], rendered[SIGNED_BY[name]][side]
        assert _raw_name(child, "issuer") == _raw_name(ca, "subject")


def test_name_string_types_follow_the_characters(rendered: dict[str, tuple[Any, Any]]) -> None:
    """The rule itself, on Helm's certificates: what the comparison above holds us to."""
    types = {name: next(iter(rendered[name][0].subject))._type.name for name in
             ("ca-printable", "ca-every-printable-punctuation", "ca-asterisk", "ca-ampersand",
              "ca-underscore", "ca-at", "ca-non-ascii")}
    assert types == {"ca-printable": "PrintableString", "ca-every-printable-punctuation": "PrintableString",
                     "ca-asterisk": "UTF8String", "ca-ampersand": "UTF8String",
                     "ca-underscore": "UTF8String", "ca-at": "UTF8String", "ca-non-ascii": "UTF8String"}
