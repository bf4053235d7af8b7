"""Template functions: Sprig's keys and certificates (genPrivateKey,
buildCustomCert, genCA, genSelfSignedCert, genSignedCert and their WithKey
forms), registered with the crypto family.

Certificates follow Sprig's x509 templates as Go's CreateCertificate fills
them in: a random 128-bit serial, NotBefore now, NotAfter now + daysValid
days, KeyEncipherment|DigitalSignature (plus CertSign for a CA), server and
client auth, basic constraints, SANs from ips and alternate names, a CA's
SubjectKeyId and a child's AuthorityKeyId. `cryptography` is imported inside
the functions.
"""

from __future__ import annotations

import base64

from runner.funcs.crypto import sha256
from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError
from runner.golang.types import format_value
from runner.records import Record

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def _std_b64decode(text: str) -> bytes:
    from runner.funcs.crypto import std_b64decode

    return std_b64decode(text)



class Certificate(Record):
    """Sprig's `certificate` struct: templates read .Cert and .Key. A Record (a
    dataclass imports inspect, ~5 ms); hashable, as a comparable Go struct is."""

    __slots__ = ("Cert", "Key")
    go_type = "sprig.certificate"
    go_kind = "struct"

    def __init__(self, cert: str, key: str) -> None:
        self.Cert = cert  # Go field names
        self.Key = key

    def __hash__(self) -> int:
        return hash((self.Cert, self.Key))

    def __go_str__(self) -> str:
        return "{" + self.Cert + " " + self.Key + "}"

    def __go_json__(self) -> dict[str, str]:
        return {"Cert": self.Cert, "Key": self.Key}


# The keys this process wrote as PEM, by that PEM: a CA made by genCA is usually
# passed straight to genSignedCert, and parsing its key again (OpenSSL checks the
# primes) costs ~40 ms. Bounded: a long-lived process renders many charts.
_WRITTEN_KEYS: dict[str, Any] = {}
_WRITTEN_KEYS_MAX = 64


def _pem_for_key(key: Any) -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, rsa

    encoding = serialization.Encoding.PEM
    no_encryption = serialization.NoEncryption()
    if isinstance(key, (rsa.RSAPrivateKey, dsa.DSAPrivateKey, ec.EllipticCurvePrivateKey)):
        # RSA PRIVATE KEY (PKCS#1), DSA PRIVATE KEY, EC PRIVATE KEY (SEC 1), as Go's pemBlockForKey.
        fmt = serialization.PrivateFormat.TraditionalOpenSSL
    else:
        fmt = serialization.PrivateFormat.PKCS8
    pem: str = key.private_bytes(encoding, fmt, no_encryption).decode("ascii")
    if len(_WRITTEN_KEYS) >= _WRITTEN_KEYS_MAX:
        _WRITTEN_KEYS.clear()
    _WRITTEN_KEYS[pem] = key
    return pem


def _generate_key(kind: str) -> Any:
    from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa

    if kind in ("", "rsa"):
        return rsa.generate_private_key(public_exponent=65537, key_size=4096)
    if kind == "dsa":
        return dsa.generate_private_key(key_size=2048)
    if kind == "ecdsa":
        return ec.generate_private_key(ec.SECP256R1())
    if kind == "ed25519":
        return ed25519.Ed25519PrivateKey.generate()
    return None


@gofunc("genPrivateKey", ("string",), returns="string")
def gen_private_key(kind: str) -> str:
    key = _generate_key(kind)
    if key is None:
        return "Unknown type " + kind
    return _pem_for_key(key)


_KEY_FORMATS = {
    # block kind: (label in Sprig's error, Go struct asn1 names, error prefix Go adds)
    "": ("decoding PEM as PKCS#8", "pkcs8", ""),
    "RSA": ("parsing RSA private key from PEM", "pkcs1PrivateKey", ""),
    "EC": ("parsing EC private key from PEM", "ecPrivateKey", "x509: failed to parse EC private key: "),
    "DSA": ("parsing DSA private key from PEM", "DSAKeyFormat", ""),
}


def _parse_private_key_pem(text: str) -> Any:
    """parsePrivateKeyPEM: PKCS#8, PKCS#1 RSA, SEC 1 EC and DSA blocks."""
    generated = _WRITTEN_KEYS.get(text)
    if generated is not None:
        return generated
    from cryptography.hazmat.primitives import serialization

    block_type, body = _pem_decode(text)
    if block_type is None:
        raise FuncError("no PEM data in input")
    if block_type != "PRIVATE KEY" and not block_type.endswith(" PRIVATE KEY"):
        raise FuncError(f"no private key data in PEM block of type {block_type}")
    kind = block_type[: -len(" PRIVATE KEY")] if block_type != "PRIVATE KEY" else ""
    if kind not in _KEY_FORMATS:
        raise FuncError(f"invalid private key type {block_type}")
    label, go_struct, prefix = _KEY_FORMATS[kind]
    pem = f"-----BEGIN {block_type}-----\n" + base64.encodebytes(body).decode() + f"-----END {block_type}-----\n"
    try:
        return serialization.load_pem_private_key(pem.encode(), password=None)
    except (ValueError, TypeError) as err:
        reason = _asn1_outer_error(body, go_struct) or str(err)
        raise FuncError(f"{label}: {prefix}{reason}") from None


def _asn1_outer_error(der: bytes, go_struct: str) -> str | None:
    """encoding/asn1's error when der does not start with a whole SEQUENCE
    (the usual shape of a corrupt key), or None when it does."""
    if len(der) < 2 or der[0] & 0x1F == 0x1F:
        return None if len(der) >= 2 else "asn1: syntax error: truncated tag or length"
    cls, compound, tag = der[0] >> 6, bool(der[0] & 0x20), der[0] & 0x1F
    length, offset = der[1], 2
    if length & 0x80:
        count = length & 0x7F
        length, offset = int.from_bytes(der[2 : 2 + count], "big"), 2 + count
    is_sequence = cls == 0 and tag == 16 and compound
    if is_sequence:
        # Go checks the tag first, then the length, then the fields inside.
        if offset + length > len(der):
            return "asn1: syntax error: data truncated"
        return "asn1: syntax error: sequence truncated" if length == 0 else None
    params = (
        "{optional:false explicit:false application:false private:false defaultValue:<nil> "
        "tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false}"
    )
    found = f"{{class:{cls} tag:{tag} length:{length} isCompound:{str(compound).lower()}}}"
    return f"asn1: structure error: tags don't match (16 vs {found}) {params} {go_struct} @{offset}"


def _load_certificate(der: bytes, what: str) -> Any:
    """x509.ParseCertificate; Go reports a structurally broken one as malformed."""
    from cryptography import x509

    try:
        return x509.load_der_x509_certificate(der)
    except ValueError:
        raise FuncError(f"error parsing certificate: {what}: x509: malformed certificate") from None


def _pem_decode(text: str) -> tuple[str | None, bytes]:
    """encoding/pem.Decode of the first block: (type, bytes) or (None, b'')."""
    import re

    match = re.search(r"-----BEGIN ([^\n-]*)-----\r?\n(.*?)-----END \1-----", text, re.S)
    if match is None:
        return None, b""
    lines = [ln for ln in match.group(2).splitlines() if ln.strip() and ":" not in ln]
    try:
        return match.group(1), base64.b64decode("".join(lines), validate=True)
    except ValueError:
        return None, b""


def _ip_addresses(ips: list[Any] | None) -> list[Any]:
    import ipaddress

    result = []
    for ip in ips or []:
        if not isinstance(ip, str):
            raise FuncError(f"error parsing ip: {format_value(ip)} is not a string")
        try:
            result.append(ipaddress.ip_address(ip))
        except ValueError:
            raise FuncError(f"error parsing ip: {ip}") from None
    return result


def _dns_names(names: list[Any] | None) -> list[str]:
    for name in names or []:
        if not isinstance(name, str):
            raise FuncError(
                f"error processing alternate dns name: {format_value(name)} is not a string"
            )
    return list(names or [])


def _build_certificate(
    cn: str,
    ips: list[Any] | None,
    dns: list[Any] | None,
    days_valid: int,
    key: Any,
    signer: tuple[Any, Any] | None = None,
    is_ca: bool = False,
) -> Certificate:
    """getBaseCertTemplate + x509.CreateCertificate + PEM encoding."""
    import datetime as dt

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ed25519
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    addresses, names = _ip_addresses(ips), _dns_names(dns)
    _check_go_key_types(signer[1] if signer else key, key)
    subject = x509.Name([_go_name_attribute(NameOID.COMMON_NAME, cn)]) if cn else x509.Name([])
    import secrets

    issuer_cert, issuer_key = signer if signer else (None, key)
    now = dt.datetime.now(dt.UTC)
    builder = (
        x509.CertificateBuilder()
        .serial_number(secrets.randbelow(1 << 128))
        .subject_name(subject)
        .issuer_name(_subject_of(issuer_cert) if issuer_cert else subject)
        .public_key(key.public_key())
        .not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=days_valid))
        .add_extension(_key_usage(is_ca), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=is_ca, path_length=None), critical=True)
    )
    if is_ca:
        ski = x509.SubjectKeyIdentifier(_subject_key_id(key.public_key()))
        builder = builder.add_extension(ski, critical=False)
    if issuer_cert is not None:
        builder = _add_authority_key_id(builder, issuer_cert)
    sans = [x509.DNSName(n) for n in names] + [x509.IPAddress(a) for a in addresses]
    if sans:
        builder = builder.add_extension(x509.SubjectAlternativeName(sans), critical=False)
    algorithm = None if isinstance(issuer_key, ed25519.Ed25519PrivateKey) else hashes.SHA256()
    try:
        cert = builder.sign(issuer_key, algorithm)
    except (ValueError, TypeError) as err:
        raise FuncError(f"error creating certificate: {err}") from None
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode("ascii")
    return Certificate(cert_pem, _pem_for_key(key))


# encoding/asn1's isPrintable (with '*' and '&' rejected, as when marshalling): the
# characters a PrintableString may hold.
_CN_LIMIT = 64  # cryptography's upper bound for a common name
_PRINTABLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 '()+,-./:=?")


def _go_name_attribute(oid: Any, value: str) -> Any:
    """A name attribute as crypto/x509 marshals it: a Go string becomes a PrintableString
    when every character is printable in that sense, a UTF8String otherwise (the
    `cryptography` default would be UTF8String always, other bytes than Helm's)."""
    from cryptography import x509
    from cryptography.x509.name import _ASN1Type

    kind = _ASN1Type.PrintableString if set(value) <= _PRINTABLE else _ASN1Type.UTF8String
    if len(value.encode()) <= _CN_LIMIT:
        return x509.NameAttribute(oid, value, _type=kind)
    # Go sets no upper bound (RFC 5280's 64 for a common name); cryptography refuses
    # longer ones unless told not to validate, and then warns.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return x509.NameAttribute(oid, value, _type=kind, _validate=False)


def _subject_of(cert: Any) -> Any:
    """The parent's subject (Go copies its raw bytes; `cryptography` keeps each attribute's
    string type, so it encodes the same), without the warning `cryptography` gives for a
    common name over 64 bytes, which Go accepts."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cert.subject


def _der_element(data: bytes, offset: int) -> tuple[int, int]:
    """(start of contents, end) of the DER element at offset."""
    length = data[offset + 1]
    start = offset + 2
    if length & 0x80:
        count = length & 0x7F
        length = int.from_bytes(data[start : start + count], "big")
        start += count
    return start, start + length


def _subject_key_id(public_key: Any) -> bytes:
    """Go 1.25 CreateCertificate: the first 160 bits of SHA-256 over the
    subjectPublicKey BIT STRING of the key's SubjectPublicKeyInfo."""
    from cryptography.hazmat.primitives import serialization

    spki = public_key.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    body, _ = _der_element(spki, 0)  # SubjectPublicKeyInfo SEQUENCE
    _, algorithm_end = _der_element(spki, body)  # AlgorithmIdentifier
    bits_start, bits_end = _der_element(spki, algorithm_end)  # BIT STRING
    return sha256(spki[bits_start + 1 : bits_end]).digest()[:20]  # skip unused-bits byte


def _add_authority_key_id(builder: Any, issuer_cert: Any) -> Any:
    """Go sets AuthorityKeyId to the parent's SubjectKeyId when it has one."""
    from cryptography import x509

    try:
        ski = issuer_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
    except x509.ExtensionNotFound:
        return builder
    aki = x509.AuthorityKeyIdentifier(ski.digest, None, None)
    return builder.add_extension(aki, critical=False)


def _check_go_key_types(signing_key: Any, key: Any) -> None:
    """x509.CreateCertificate signs with RSA, ECDSA or Ed25519 keys only."""
    from cryptography.hazmat.primitives.asymmetric import dsa

    if isinstance(signing_key, dsa.DSAPrivateKey):
        message = "x509: certificate private key does not implement crypto.Signer"
        raise FuncError(f"error creating certificate: {message}")
    if isinstance(key, dsa.DSAPrivateKey):
        raise FuncError("error creating certificate: x509: unsupported public key type: *dsa.PublicKey")


def _key_usage(is_ca: bool) -> Any:
    from cryptography import x509

    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=True,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=is_ca,
        crl_sign=False,
        encipher_only=False,
        decipher_only=False,
    )


def _new_rsa_key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _key_from_pem(text: str) -> Any:
    try:
        return _parse_private_key_pem(text)
    except FuncError as err:
        raise FuncError(f"parsing private key: {err}") from None


@gofunc("genCA", ("string", "int"), returns="sprig.certificate", fallible=True)
def gen_ca(cn: str, days_valid: int) -> Certificate:
    return _build_certificate(cn, None, None, days_valid, _new_rsa_key(), is_ca=True)


@gofunc("genCAWithKey", ("string", "int", "string"), returns="sprig.certificate", fallible=True)
def gen_ca_with_key(cn: str, days_valid: int, key_pem: str) -> Certificate:
    return _build_certificate(cn, None, None, days_valid, _key_from_pem(key_pem), is_ca=True)


_CERT_PARAMS = ("string", "[]interface {}", "[]interface {}", "int")


@gofunc("genSelfSignedCert", _CERT_PARAMS, returns="sprig.certificate", fallible=True)
def gen_self_signed_cert(cn: str, ips: list[Any], dns: list[Any], days_valid: int) -> Certificate:
    return _build_certificate(cn, ips, dns, days_valid, _new_rsa_key())


@gofunc(
    "genSelfSignedCertWithKey", (*_CERT_PARAMS, "string"), returns="sprig.certificate", fallible=True
)
def gen_self_signed_cert_with_key(
    cn: str, ips: list[Any], dns: list[Any], days_valid: int, key_pem: str
) -> Certificate:
    return _build_certificate(cn, ips, dns, days_valid, _key_from_pem(key_pem))


def _signer(ca: Certificate) -> tuple[Any, Any]:

    block_type, der = _pem_decode(ca.Cert)
    if block_type is None:
        raise FuncError("unable to decode certificate")
    cert = _load_certificate(der, "decodedSignerCert.Bytes")
    try:
        key = _parse_private_key_pem(ca.Key)
    except FuncError as err:
        raise FuncError(f"error parsing private key: {err}") from None
    return cert, key


@gofunc(
    "genSignedCert", (*_CERT_PARAMS, "sprig.certificate"), returns="sprig.certificate", fallible=True
)
def gen_signed_cert(
    cn: str, ips: list[Any], dns: list[Any], days_valid: int, ca: Certificate
) -> Certificate:
    signer = _signer(ca)
    return _build_certificate(cn, ips, dns, days_valid, _new_rsa_key(), signer)


@gofunc(
    "genSignedCertWithKey",
    (*_CERT_PARAMS, "sprig.certificate", "string"),
    returns="sprig.certificate",
    fallible=True,
)
def gen_signed_cert_with_key(
    cn: str, ips: list[Any], dns: list[Any], days_valid: int, ca: Certificate, key_pem: str
) -> Certificate:
    signer = _signer(ca)
    return _build_certificate(cn, ips, dns, days_valid, _key_from_pem(key_pem), signer)


@gofunc("buildCustomCert", ("string", "string"), returns="sprig.certificate", fallible=True)
def build_custom_cert(b64cert: str, b64key: str) -> Certificate:

    try:
        cert = _std_b64decode(b64cert)
    except FuncError:
        raise FuncError("unable to decode base64 certificate") from None
    try:
        key = _std_b64decode(b64key)
    except FuncError:
        raise FuncError("unable to decode base64 private key") from None
    block_type, der = _pem_decode(cert.decode("utf-8", "surrogateescape"))
    if block_type is None:
        raise FuncError("unable to decode certificate")
    _load_certificate(der, "decodedCert.Bytes")
    key_text = key.decode("utf-8", "surrogateescape")
    try:
        _parse_private_key_pem(key_text)
    except FuncError as err:
        raise FuncError(f"error parsing private key: {err}") from None
    return Certificate(cert.decode("utf-8", "surrogateescape"), key_text)

