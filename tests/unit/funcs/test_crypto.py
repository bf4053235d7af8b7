"""Sprig's crypto functions. Fixed-output functions use Sprig v3's
crypto_test.go vectors (hashes, derivePassword); random ones are checked by
property: format, length, alphabet, and validity with `cryptography` and
`bcrypt` (certificates parse and verify against their CA, hashes verify,
encryptAES output decrypts)."""

from __future__ import annotations

import base64
import datetime as dt
import re
import uuid

import bcrypt as bcrypt_lib
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, ed25519, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from runner.funcs import certs, crypto
from runner.funcs.registry import registered
from runner.golang.gofunc import FuncError


def test_registered_signatures() -> None:
    funcs = registered()
    assert funcs["derivePassword"].params == ("uint32", "string", "string", "string", "string")
    assert funcs["genSignedCert"].params[-1] == "sprig.certificate"
    assert funcs["genCA"].fallible and funcs["encryptAES"].fallible
    for name in ("sha1sum", "sha256sum", "sha512sum", "adler32sum", "bcrypt", "htpasswd",
                 "randBytes", "uuidv4", "genPrivateKey", "buildCustomCert", "genCAWithKey",
                 "genSelfSignedCert", "genSelfSignedCertWithKey", "genSignedCertWithKey",
                 "decryptAES"):  # fmt: skip
        assert name in funcs


def test_hashes() -> None:
    # Sprig TestSha256Sum / TestSha1Sum / TestAdler32Sum / TestSha512Sum on "abc".
    assert crypto.sha256sum("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    assert crypto.sha1sum("abc") == "a9993e364706816aba3e25717850c26c9cd0d89d"
    assert crypto.adler32sum("abc") == "38600999"
    assert crypto.sha512sum("abc") == (
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
        "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
    )


@pytest.mark.parametrize(
    ("counter", "kind", "expected"),
    [
        (1, "long", "ZedaFaxcZaso9*"),
        (2, "long", "Fovi2@JifpTupx"),
        (1, "maximum", "pf4zS1LjCg&LjhsZ7T2~"),
        (1, "medium", "ZedJuz8$"),
        (1, "basic", "pIS54PLs"),
        (1, "short", "Zed5"),
        (1, "pin", "6685"),
    ],
)
def test_derive_password_master_password_vectors(counter: int, kind: str, expected: str) -> None:
    # Sprig TestDerivePassword
    assert crypto.derive_password(counter, kind, "password", "user", "example.com") == expected


def test_derive_password_unknown_template() -> None:
    assert crypto.derive_password(1, "nope", "p", "u", "s") == "cannot find password template nope"


def test_bcrypt_hash_verifies() -> None:
    hashed = crypto.bcrypt("myPassword")
    assert re.fullmatch(r"\$2a\$10\$[./A-Za-z0-9]{53}", hashed)
    assert bcrypt_lib.checkpw(b"myPassword", hashed.encode())


def test_htpasswd() -> None:
    # Sprig TestHtpasswd: user:hash, and ':' is not allowed in a username.
    line = crypto.htpasswd("myUser", "myPassword")
    user, hashed = line.split(":", 1)
    assert user == "myUser"
    assert bcrypt_lib.checkpw(b"myPassword", hashed.encode())
    assert crypto.htpasswd("wrongus:er", "x") == "invalid username: wrongus:er"


def test_rand_bytes_is_base64_of_the_requested_length() -> None:
    for count in (0, 1, 16, 33):
        assert len(base64.b64decode(crypto.rand_bytes(count), validate=True)) == count


def test_uuidv4_format() -> None:
    value = crypto.uuidv4()
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", value)
    parsed = uuid.UUID(value)
    assert (parsed.version, parsed.variant, str(parsed)) == (4, uuid.RFC_4122, value)
    assert value != crypto.uuidv4()


def test_encrypt_aes_round_trips_with_sprig_layout() -> None:
    # Sprig TestEncryptDecryptAES: encryptAES then decryptAES gives the plaintext back.
    for plaintext in ("plaintext", "x" * 16, "ünïcode"):
        encrypted = crypto.encrypt_aes("secretkey", plaintext)
        raw = base64.b64decode(encrypted, validate=True)
        padded = (len(plaintext.encode()) // 16 + 1) * 16  # PKCS#7 always adds padding
        assert len(raw) == 16 + padded  # random IV, then the CBC blocks
        assert crypto.decrypt_aes("secretkey", encrypted) == plaintext
    assert crypto.encrypt_aes("k", "") == "" and crypto.decrypt_aes("k", "") == ""


def test_decrypt_aes_errors() -> None:
    with pytest.raises(FuncError, match="illegal base64 data at input byte 1"):
        crypto.decrypt_aes("k", "a*bc")
    with pytest.raises(FuncError, match="^crypto/cipher: input not full blocks$"):
        crypto.decrypt_aes("k", base64.b64encode(b"0" * 20).decode())


@pytest.mark.parametrize(
    ("kind", "header", "key_type"),
    [
        ("ecdsa", "EC PRIVATE KEY", ec.EllipticCurvePrivateKey),
        ("ed25519", "PRIVATE KEY", ed25519.Ed25519PrivateKey),
        ("dsa", "DSA PRIVATE KEY", dsa.DSAPrivateKey),
    ],
)
def test_gen_private_key_pem_blocks(kind: str, header: str, key_type: type) -> None:
    pem = certs.gen_private_key(kind)
    assert pem.startswith(f"-----BEGIN {header}-----\n")
    assert pem.endswith(f"-----END {header}-----\n")
    assert isinstance(serialization.load_pem_private_key(pem.encode(), None), key_type)


def test_gen_private_key_rsa_is_4096_bit_pkcs1() -> None:
    pem = certs.gen_private_key("rsa")
    assert pem.startswith("-----BEGIN RSA PRIVATE KEY-----\n")
    key = serialization.load_pem_private_key(pem.encode(), None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 4096


def test_gen_private_key_unknown_type() -> None:
    assert certs.gen_private_key("foo") == "Unknown type foo"


def _load(cert: certs.Certificate) -> x509.Certificate:
    return x509.load_pem_x509_certificate(cert.Cert.encode())


def _key_usage(cert: x509.Certificate) -> x509.KeyUsage:
    return cert.extensions.get_extension_for_class(x509.KeyUsage).value


@pytest.fixture(scope="module")
def ca() -> certs.Certificate:
    return certs.gen_ca("foo-ca", 365)


def test_gen_ca(ca: certs.Certificate) -> None:
    # Sprig TestGenCA: CN, IsCA, validity of daysValid days, a 2048-bit RSA key.
    cert = _load(ca)
    assert cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value == "foo-ca"
    assert cert.issuer == cert.subject
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is True
    usage = _key_usage(cert)
    assert usage.key_cert_sign and usage.digital_signature and usage.key_encipherment
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == dt.timedelta(days=365)
    assert 0 < cert.serial_number < 1 << 128
    key = serialization.load_pem_private_key(ca.Key.encode(), None)
    assert isinstance(key, rsa.RSAPrivateKey) and key.key_size == 2048
    assert ca.Key.startswith("-----BEGIN RSA PRIVATE KEY-----")
    cert.verify_directly_issued_by(cert)


def test_gen_self_signed_cert_sans_and_usages() -> None:
    # Sprig TestGenSelfSignedCert: SANs from ips and alternate names.
    cert_obj = certs.gen_self_signed_cert("foo.com", ["10.0.0.1", "::1"], ["bar.com", "bat.com"], 365)
    cert = _load(cert_obj)
    sans = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert sans.get_values_for_type(x509.DNSName) == ["bar.com", "bat.com"]
    assert [str(ip) for ip in sans.get_values_for_type(x509.IPAddress)] == ["10.0.0.1", "::1"]
    eku = cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value
    assert list(eku) == [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca is False
    assert not _key_usage(cert).key_cert_sign
    cert.verify_directly_issued_by(cert)


def test_gen_signed_cert_verifies_against_its_ca(ca: certs.Certificate) -> None:
    # Sprig TestGenSignedCert: issuer is the CA, signature verifies.
    signed = certs.gen_signed_cert("foo.com", ["10.0.0.1"], ["bar.com"], 30, ca)
    cert, ca_cert = _load(signed), _load(ca)
    assert cert.issuer == ca_cert.subject
    cert.verify_directly_issued_by(ca_cert)
    assert serialization.load_pem_private_key(signed.Key.encode(), None).public_key().public_numbers() == (
        cert.public_key().public_numbers()
    )


def test_with_key_variants_use_the_given_key(ca: certs.Certificate) -> None:
    key_pem = certs.gen_private_key("ecdsa")
    for cert_obj in (
        certs.gen_ca_with_key("ca", 10, key_pem),
        certs.gen_self_signed_cert_with_key("a", [], [], 10, key_pem),
        certs.gen_signed_cert_with_key("b", [], [], 10, ca, key_pem),
    ):
        assert cert_obj.Key == key_pem
        key = serialization.load_pem_private_key(key_pem.encode(), None)
        assert _load(cert_obj).public_key() == key.public_key()


def test_ed25519_ca_signs() -> None:
    ca_obj = certs.gen_ca_with_key("ed", 1, certs.gen_private_key("ed25519"))
    signed = certs.gen_signed_cert("leaf", None, None, 1, ca_obj)
    _load(signed).verify_directly_issued_by(_load(ca_obj))


def test_certificate_errors() -> None:
    with pytest.raises(FuncError, match="^error parsing ip: nope$"):
        certs.gen_self_signed_cert("x", ["nope"], [], 1)
    with pytest.raises(FuncError, match="^error parsing ip: 1 is not a string$"):
        certs.gen_self_signed_cert("x", [1], [], 1)
    with pytest.raises(FuncError, match="^parsing private key: no PEM data in input$"):
        certs.gen_ca_with_key("x", 1, "garbage")
    with pytest.raises(FuncError, match="^unable to decode certificate$"):
        certs.gen_signed_cert("x", [], [], 1, certs.Certificate("bad", "bad"))


def test_build_custom_cert(ca: certs.Certificate) -> None:
    # Sprig TestBuildCustomCert: base64 PEM cert and key come back as .Cert and .Key.
    b64cert = base64.b64encode(ca.Cert.encode()).decode()
    b64key = base64.b64encode(ca.Key.encode()).decode()
    assert certs.build_custom_cert(b64cert, b64key) == ca
    with pytest.raises(FuncError, match="^unable to decode base64 certificate$"):
        certs.build_custom_cert("%%%", b64key)
    with pytest.raises(FuncError, match="^unable to decode certificate$"):
        certs.build_custom_cert(base64.b64encode(b"nope").decode(), b64key)


def test_ca_subject_key_id_is_truncated_sha256_and_leaf_points_to_it(ca: certs.Certificate) -> None:
    # Go 1.25 x509.CreateCertificate: a CA template without SubjectKeyId gets the
    # first 160 bits of SHA-256 of its public key; children carry it as AuthorityKeyId.
    import hashlib

    ca_cert = _load(ca)
    key_bits = ca_cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.PKCS1
    )
    ski = ca_cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest
    assert ski == hashlib.sha256(key_bits).digest()[:20]
    leaf = _load(certs.gen_signed_cert("leaf", None, None, 1, ca))
    aki = leaf.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
    assert aki.key_identifier == ski


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        # encoding/asn1 errors for a corrupt key body ("AAAA" is 00 00 00: not a SEQUENCE).
        (
            "AAAA",
            "asn1: structure error: tags don't match (16 vs {class:0 tag:0 length:0 isCompound:false}) "
            "{optional:false explicit:false application:false private:false defaultValue:<nil> "
            "tag:<nil> stringType:0 timeType:0 set:false omitEmpty:false} pkcs1PrivateKey @2",
        ),
        ("MAo=", "asn1: syntax error: data truncated"),  # SEQUENCE of 10 bytes, none present
        ("MAA=", "asn1: syntax error: sequence truncated"),  # empty SEQUENCE
    ],
)
def test_corrupt_rsa_key_reports_go_asn1_errors(body: str, reason: str) -> None:
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    with pytest.raises(FuncError) as info:
        certs.gen_ca_with_key("x", 1, pem)
    assert str(info.value) == f"parsing private key: parsing RSA private key from PEM: {reason}"


def test_corrupt_certificate_is_malformed() -> None:
    cert = base64.b64encode(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n").decode()
    key = base64.b64encode(certs.gen_private_key("ecdsa").encode()).decode()
    with pytest.raises(FuncError) as info:
        certs.build_custom_cert(cert, key)
    assert str(info.value) == "error parsing certificate: decodedCert.Bytes: x509: malformed certificate"
