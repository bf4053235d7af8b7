"""Template functions: Sprig's crypto.go (hashes, bcrypt, htpasswd,
derivePassword, AES, randBytes, uuidv4); private keys and certificates are
in certs.py.

`cryptography`, `bcrypt`, `hashlib` (OpenSSL, ~3 ms) and `zlib` are imported
inside the functions that need them so that importing the function map stays
fast; sha256sum, common in charts, uses CPython's builtin SHA-256.
"""

from __future__ import annotations

import base64
import os
import struct

from runner.funcs.registry import gofunc
from runner.golang.gofunc import FuncError

try:  # CPython's own SHA-256 (3.11 `_sha256`, 3.12 `_sha2`): loading OpenSSL costs ~3 ms
    from _sha256 import sha256
except ImportError:  # pragma: no cover - other Python versions and builds
    try:
        from _sha2 import sha256  # type: ignore[no-redef]
    except ImportError:
        from hashlib import sha256  # type: ignore[no-redef]


@gofunc("sha1sum", ("string",), returns="string")
def sha1sum(text: str) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8", "surrogateescape")).hexdigest()


@gofunc("sha256sum", ("string",), returns="string")
def sha256sum(text: str) -> str:
    return sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


@gofunc("sha512sum", ("string",), returns="string")
def sha512sum(text: str) -> str:
    import hashlib

    return hashlib.sha512(text.encode("utf-8", "surrogateescape")).hexdigest()


@gofunc("adler32sum", ("string",), returns="string")
def adler32sum(text: str) -> str:
    import zlib

    return str(zlib.adler32(text.encode("utf-8", "surrogateescape")))


def _bcrypt_hash(password: str) -> str:
    import bcrypt as bcrypt_lib

    # golang.org/x/crypto/bcrypt: DefaultCost 10, "$2a$" prefix, 72-byte limit as an error.
    secret = password.encode("utf-8", "surrogateescape")
    if len(secret) > 72:
        return "failed to encrypt string with bcrypt: bcrypt: password length exceeds 72 bytes"
    hashed = bcrypt_lib.hashpw(secret, bcrypt_lib.gensalt(rounds=10, prefix=b"2a"))
    return hashed.decode("ascii")


@gofunc("bcrypt", ("string",), returns="string")
def bcrypt(password: str) -> str:
    return _bcrypt_hash(password)


@gofunc("htpasswd", ("string", "string"), returns="string")
def htpasswd(username: str, password: str) -> str:
    if ":" in username:
        return f"invalid username: {username}"
    return f"{username}:{_bcrypt_hash(password)}"


@gofunc("randBytes", ("int",), returns="string", fallible=True)
def rand_bytes(count: int) -> str:
    if count < 0:
        raise FuncError("runtime error: makeslice: len out of range")
    return base64.b64encode(os.urandom(count)).decode("ascii")  # = secrets.token_bytes


@gofunc("uuidv4", (), returns="string")
def uuidv4() -> str:
    """str(uuid.uuid4()), written out: importing uuid costs ~9 ms (it imports platform)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
    raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


# --- derivePassword: the Master Password algorithm ----------------------------

_MASTER_PASSWORD_SEED = b"com.lyndir.masterpassword"
_PASSWORD_TEMPLATES = {
    "maximum": ("anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"),
    "long": (
        "CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv", "CvccCvcvnoCvcv",
        "CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno", "CvcvnoCvcvCvcc",
        "CvcvCvcvnoCvcc", "CvcvCvcvCvccno", "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
        "CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
        "CvccCvcvCvccno",
    ),
    "medium": ("CvcnoCvc", "CvcCvcno"),
    "short": ("Cvcn",),
    "basic": ("aaanaaan", "aannaaan", "aaannaaa"),
    "pin": ("nnnn",),
}  # fmt: skip
_TEMPLATE_CHARACTERS = {
    "V": "AEIOU",
    "C": "BCDFGHJKLMNPQRSTVWXYZ",
    "v": "aeiou",
    "c": "bcdfghjklmnpqrstvwxyz",
    "A": "AEIOUBCDFGHJKLMNPQRSTVWXYZ",
    "a": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz",
    "n": "0123456789",
    "o": "@&%?,=[]_:-+*$#!'^~;()/.",
    "x": "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()",
}


@gofunc("derivePassword", ("uint32", "string", "string", "string", "string"), returns="string")
def derive_password(counter: int, password_type: str, password: str, user: str, site: str) -> str:
    import hashlib
    import hmac

    templates = _PASSWORD_TEMPLATES.get(password_type)
    if templates is None:
        return f"cannot find password template {password_type}"
    user_bytes, site_bytes = user.encode(), site.encode()
    salt = _MASTER_PASSWORD_SEED + struct.pack(">I", len(user_bytes)) + user_bytes
    key = hashlib.scrypt(
        password.encode(), salt=salt, n=32768, r=8, p=2, dklen=64, maxmem=128 * 1024 * 1024
    )
    message = _MASTER_PASSWORD_SEED + struct.pack(">I", len(site_bytes)) + site_bytes
    message += struct.pack(">I", counter & 0xFFFFFFFF)
    seed = hmac.new(key, message, hashlib.sha256).digest()
    template = templates[seed[0] % len(templates)]
    chars = [_TEMPLATE_CHARACTERS[t] for t in template]
    return "".join(c[seed[i + 1] % len(c)] for i, c in enumerate(chars))


# --- AES ------------------------------------------------------------------------


def _aes_key(password: str) -> bytes:
    # Sprig copies the password into a zeroed 32-byte key (truncating longer ones).
    return password.encode("utf-8", "surrogateescape")[:32].ljust(32, b"\0")


@gofunc("encryptAES", ("string", "string"), returns="string", fallible=True)
def encrypt_aes(password: str, plaintext: str) -> str:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if plaintext == "":
        return ""
    content = plaintext.encode("utf-8", "surrogateescape")
    padding = 16 - len(content) % 16
    content += bytes([padding]) * padding
    iv = os.urandom(16)
    encryptor = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).encryptor()
    return base64.b64encode(iv + encryptor.update(content) + encryptor.finalize()).decode("ascii")


@gofunc("decryptAES", ("string", "string"), returns="string", fallible=True)
def decrypt_aes(password: str, crypt64: str) -> str:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    if crypt64 == "":
        return ""
    crypt = std_b64decode(crypt64)
    if len(crypt) < 16:
        raise FuncError(f"runtime error: slice bounds out of range [:16] with capacity {len(crypt)}")
    iv, body = crypt[:16], crypt[16:]
    if len(body) % 16:
        raise FuncError("crypto/cipher: input not full blocks")
    if not body:
        raise FuncError("runtime error: index out of range [-1]")
    decryptor = Cipher(algorithms.AES(_aes_key(password)), modes.CBC(iv)).decryptor()
    plain = decryptor.update(body) + decryptor.finalize()
    cut = len(plain) - plain[-1]
    if cut < 0:
        raise FuncError(f"runtime error: slice bounds out of range [:{cut}]")
    return plain[:cut].decode("utf-8", "surrogateescape")


def std_b64decode(text: str) -> bytes:
    """base64.StdEncoding.DecodeString (\r and \n ignored) with Go's CorruptInputError text."""
    import binascii

    data = text.replace("\r", "").replace("\n", "")
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return _b64_error(data)


def _b64_error(data: str) -> bytes:
    alphabet = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
    for index, char in enumerate(data):
        if char not in alphabet and char != "=":
            raise FuncError(f"illegal base64 data at input byte {index}")
    # Bad length or padding: Go reports the offset of the incomplete quantum.
    raise FuncError(f"illegal base64 data at input byte {len(data) - len(data) % 4}")

