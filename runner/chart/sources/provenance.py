"""Chart provenance (Helm's pkg/provenance): verify a .prov file against a keyring.

A .prov file is an OpenPGP clear-signed message: the chart's Chart.yaml, a
`...` line, then `files:` mapping the archive's name to its sha256. The
signature is checked by GnuPG through `python-gnupg` in a throwaway home
directory, with only the given keyring (Helm's legacy pubring.gpg format).
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from runner.chart.sources.errors import SourceError
from runner.encoding import goyaml

_CLEARSIGNED = re.compile(
    r"-----BEGIN PGP SIGNED MESSAGE-----\r?\n(?:[^\r\n]+\r?\n)*\r?\n(.*?)\r?\n-----BEGIN PGP SIGNATURE-----",
    re.S,
)


@dataclass(frozen=True)
class Verification:
    """What Helm prints after a verified pull: signer identities, key fingerprint, chart hash."""

    signed_by: list[str]
    fingerprint: str
    file_hash: str
    file_name: str

    def report(self) -> str:
        lines = [f"Signed by: {name}" for name in self.signed_by]
        lines += [f"Using Key With Fingerprint: {self.fingerprint}", f"Chart Hash Verified: {self.file_hash}"]
        return "\n".join(lines) + "\n"


def plaintext(prov: str) -> str:
    """The signed text of a clear-signed message, dash-escaping undone."""
    match = _CLEARSIGNED.search(prov)
    if match is None:
        raise SourceError("failed to decode signature: signature block not found")
    return "\n".join(line[2:] if line.startswith("- ") else line for line in match.group(1).splitlines())


def file_sums(message: str) -> dict[str, str]:
    """parseMessageBlock: the `files:` map after the `...` separator."""
    _, sep, sums = message.partition("\n...\n")
    if not sep:
        raise SourceError("message block must have at least two parts")
    doc = goyaml.load(sums) or {}
    files = doc.get("files") if isinstance(doc, dict) else None
    return {str(k): str(v) for k, v in (files or {}).items()}


def _check_keyring(keyring: Path) -> None:
    """Helm loads the keyring before anything else; an unreadable one is its first error."""
    try:
        head = keyring.read_bytes()[:1]
    except OSError as exc:
        raise SourceError(f"failed to load keyring: open {keyring}: {(exc.strerror or '').lower()}") from exc
    if not head:
        raise SourceError("failed to load keyring: openpgp: invalid argument: no armored data found")
    if not head[0] & 0x80:
        raise SourceError("failed to load keyring: openpgp: invalid data: tag byte does not have MSB set")


def _check_signature(prov: Path, keyring: Path) -> tuple[list[str], str]:
    import gnupg

    _check_keyring(keyring)
    with tempfile.TemporaryDirectory(prefix="deploy-runner-gpg-") as home:
        gpg = gnupg.GPG(gnupghome=home, keyring=str(keyring.absolute()))
        result = gpg.verify_file(str(prov))
        if not result.valid:
            raise SourceError("openpgp: signature made by unknown entity"
                              if result.status in ("no public key", None) else f"openpgp: {result.status}")
        fingerprint = result.pubkey_fingerprint or result.fingerprint or ""
        identities = [uid for key in gpg.list_keys() if key["fingerprint"] == fingerprint for uid in key["uids"]]
    return identities or [result.username or ""], fingerprint.upper()


def verify_chart(archive: Path, prov: Path, keyring: Path) -> Verification:
    """VerifyChart: the files, the keyring, the signature, then the archive's sha256 against the signed sums."""
    if not archive.exists():
        raise SourceError(f"stat {archive}: no such file or directory")
    if archive.is_dir():
        raise SourceError("unpacked charts cannot be verified")
    if archive.suffix.lower() != ".tgz":
        raise SourceError("chart must be a tgz file")
    if not prov.exists():
        raise SourceError(f"could not load provenance file {prov}: stat {prov}: no such file or directory")
    signed_by, fingerprint = _check_signature(prov, keyring)
    digest = "sha256:" + hashlib.sha256(archive.read_bytes()).hexdigest()
    sums = file_sums(plaintext(prov.read_text(errors="replace")))
    expected = sums.get(archive.name)
    if expected is None:
        raise SourceError(f'provenance does not contain a SHA for a file named "{archive.name}"')
    if expected != digest:
        raise SourceError(f'sha256 sum does not match for {archive.name}: "{expected}" != "{digest}"')
    return Verification(signed_by, fingerprint, digest, archive.name)


def message_block(archive: Path) -> str:
    """messageBlock: the chart's metadata as YAML, `...`, and the archive's sha256 under `files:`."""
    from runner.chart.gostructs import metadata_struct
    from runner.chart.loader import load_archive_file
    from runner.encoding.yamlemit import dump

    chart = load_archive_file(archive)
    digest = "sha256:" + hashlib.sha256(archive.read_bytes()).hexdigest()
    return dump(metadata_struct(chart.metadata).as_map()) + "\n...\n" + dump({"files": {archive.name: digest}})


def _signing_key(gpg: object, key_id: str) -> str:
    """NewFromKeyring's choice: an identity equal to `key_id`, else the one key containing it."""
    candidates: list[str] = []
    for key in gpg.list_keys(secret=True):  # type: ignore[attr-defined]
        if key_id in key["uids"]:
            return str(key["fingerprint"])
        if any(key_id in uid for uid in key["uids"]):
            candidates.append(str(key["fingerprint"]))
    if len(candidates) > 1:
        raise SourceError(f'more than one key contain the id "{key_id}"')
    if not candidates:
        raise SourceError("private key not found")
    return candidates[0]


def sign_chart(archive: Path, key_id: str, keyring: Path, passphrase: str | None = None) -> Path:
    """`package --sign`: write <archive>.prov, clear-signed with the key named from a secret keyring."""
    import gnupg

    _check_keyring(keyring)
    with tempfile.TemporaryDirectory(prefix="deploy-runner-gpg-") as home:
        gpg = gnupg.GPG(gnupghome=home)
        try:
            imported = gpg.import_keys(keyring.read_bytes(), extra_args=["--batch"])
            if not imported.count:
                raise SourceError("failed to load keyring: no keys found")
            fingerprint = _signing_key(gpg, key_id)
            signed = gpg.sign(message_block(archive), keyid=fingerprint, clearsign=True,
                              passphrase=passphrase, extra_args=["--digest-algo", "SHA512", "--pinentry-mode", "loopback"])
        finally:
            subprocess.run(["gpgconf", "--homedir", home, "--kill", "gpg-agent"], capture_output=True,
                           timeout=30, check=False)
    if not signed.data:
        raise SourceError(f"failed to sign the chart: {signed.status or signed.stderr.strip()}")
    target = Path(f"{archive}.prov")
    target.write_bytes(signed.data.rstrip(b"\n"))
    return target
