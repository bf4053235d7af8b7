"""The redaction layer: every form a secret can take in text is hidden, nothing else."""

from __future__ import annotations

import base64
import json

import pytest

from runner.release.record import Hook, Info, Release
from runner.release.redact import MASK, Redactor

CANARY = "canary-s3cr3t-value"


def test_a_secret_is_hidden_wherever_it_appears() -> None:
    redactor = Redactor([CANARY])

    assert redactor.redact(f"connecting with {CANARY}") == f"connecting with {MASK}"
    assert redactor.redact(f"password={CANARY};x") == f"password={MASK};x"
    assert redactor.redact("nothing to hide here") == "nothing to hide here"


@pytest.mark.parametrize("prefix", ["", "a", "ab", "abc", "user:"])
def test_its_base64_is_hidden_alone_and_inside_longer_base64(prefix: str) -> None:
    redactor = Redactor([CANARY])
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        encoded = encode(f"{prefix}{CANARY}-and-more".encode()).decode()

        shown = redactor.redact(f"token {encoded}")

        assert MASK in shown
        # What is left of the encoding no longer decodes to the secret.
        assert CANARY not in base64.b64decode(shown.replace(MASK, "").split()[-1] + "===", validate=False
                                              ).decode(errors="replace")
    assert redactor.redact(base64.b64encode(CANARY.encode()).decode()) == MASK
    # Ending the encoded text, its last (padded) group goes too: nothing of it is left.
    assert redactor.redact(base64.b64encode(f"user:{CANARY}".encode()).decode()) == f"dXNlcjpj{MASK}"


def test_json_escaped_and_multi_line_values_are_hidden_line_by_line() -> None:
    cert = "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
    quoted = 'pa"ss\\word'
    redactor = Redactor([cert, quoted])

    assert redactor.redact(json.dumps({"p": quoted})) == f'{{"p": "{MASK}"}}'
    assert redactor.redact_lines(cert.splitlines()) == [MASK, MASK, MASK]


def test_short_values_booleans_and_plain_words_are_not_secrets_to_hide() -> None:
    redactor = Redactor()
    redactor.add_values({"a": "on", "b": True, "c": None, "d": "true", "e": 1, "f": "ab"})

    assert not redactor
    assert redactor.redact("on true 1 ab") == "on true 1 ab"


# What `run` hid before it used this redactor (its own closure over the leaves of the
# secretValues files): each value of 3 characters or more, as text and in standard base64,
# a float as Go prints it. Every one is still hidden whole, nothing of it left.
@pytest.mark.parametrize(("leaf", "text"), [
    ("abc", "abc"), (123456, "123456"), (1e6, "1e+06"), (0.5, "0.5"),
    ("hunter22\n", "hunter22\n"),  # a YAML block scalar keeps its last newline
    ("  padded  ", "  padded  "),
    ("-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----\n",
     "-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----\n"),
    ("caf\udce9-secret", "caf\udce9-secret"),  # an undecodable byte of the file, as read
])
def test_every_form_runs_closure_hid_is_still_hidden(leaf: object, text: str) -> None:
    redactor = Redactor()
    redactor.add_values({"leaf": leaf})
    encoded = base64.b64encode(text.encode("utf-8", "surrogateescape")).decode()

    assert MASK in redactor.redact(f"x {text} y")
    assert text.strip() not in redactor.redact(f"x {text} y")
    assert redactor.redact(encoded) == MASK
    assert redactor.redact(f"token: {encoded}\n") == f"token: {MASK}\n"


def test_it_can_be_filled_while_other_threads_redact() -> None:
    """A run's releases share one redactor: some add their secrets while others print."""
    import threading

    redactor = Redactor([CANARY])
    errors: list[BaseException] = []

    def add() -> None:
        for n in range(300):
            redactor.add(f"secret-number-{n}")

    def redact() -> None:
        try:
            for _ in range(300):
                assert redactor.redact(f"with {CANARY}") == f"with {MASK}"
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=add), *(threading.Thread(target=redact) for _ in range(3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert redactor.redact("secret-number-299") == MASK


def test_every_leaf_of_a_values_tree_is_secret() -> None:
    redactor = Redactor()
    redactor.add_values({"db": {"password": "hunter22", "hosts": ["primary-db", "replica-db"]}, "pin": 123456})

    assert redactor.redact("hunter22 primary-db replica-db 123456") == " ".join([MASK] * 4)


TOKEN = base64.b64encode(b"tok-abcdef").decode()
SECRETS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: plain}
data: {greeting: hello-there}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
data:
  token: TOKEN
stringData:
  api-key: sk-live-0123456789
""".replace("TOKEN", TOKEN)


def test_the_data_of_a_releases_secrets_is_hidden_and_nothing_else() -> None:
    hook_secret = Hook(name="h", kind="Secret", path="t/h.yaml", events=["pre-install"],
                       manifest="apiVersion: v1\nkind: Secret\nmetadata: {name: h}\nstringData: {k: hook-only-secret}\n")
    release = Release(name="r", namespace="ns", version=1, info=Info(), manifest=SECRETS, hooks=[hook_secret])
    redactor = Redactor()
    redactor.add_release(release)

    text = f"tok-abcdef sk-live-0123456789 hook-only-secret hello-there {base64.b64encode(b'tok-abcdef').decode()}"
    assert redactor.redact(text) == f"{MASK} {MASK} {MASK} hello-there {MASK}"


def test_a_manifest_that_does_not_parse_adds_nothing() -> None:
    redactor = Redactor()
    redactor.add_manifest("kind: Secret\n  bad: [\n")

    assert not redactor


def test_redact_data_hides_strings_in_a_tree() -> None:
    redactor = Redactor([CANARY])

    assert redactor.redact_data({"lines": [f"x {CANARY}"], "n": 1}) == {"lines": [f"x {MASK}"], "n": 1}


def test_a_listener_hears_every_form_once_now_and_as_it_is_learned() -> None:
    """What GitHub's `::add-mask::` is fed: the forms known, then each new one as it is
    learned, from several threads at once, never twice."""
    import threading

    redactor = Redactor([CANARY])
    heard: list[str] = []
    redactor.listen(heard.extend)
    assert sorted(heard) == sorted(redactor.forms())

    def add(start: int) -> None:
        for n in range(200):
            redactor.add(f"secret-number-{(start + n) % 300}")

    threads = [threading.Thread(target=add, args=(start,)) for start in (0, 100, 200)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    redactor.add(CANARY)  # known: nothing new to hear
    assert len(heard) == len(set(heard)) and set(heard) == set(redactor.forms())


def test_an_error_keeps_its_text_and_exit_code_with_the_secrets_hidden() -> None:
    from runner.errors import RunnerError, UsageError

    redactor = Redactor([CANARY])
    plain = RunnerError("nothing secret")
    assert redactor.redacted_error(plain) is plain
    usage = UsageError(f"bad flag {CANARY}")
    usage.details = f"evidence: {CANARY}"
    hidden = redactor.redacted_error(usage)
    assert (str(hidden), hidden.details, hidden.exit_code) == (  # type: ignore[attr-defined]
        f"bad flag {MASK}", f"evidence: {MASK}", 2)
    bug = redactor.redacted_error(KeyError(CANARY))
    assert str(bug) == f"internal error: KeyError: '{MASK}'"
    with pytest.raises(RunnerError, match=r"stopped: \[REDACTED\]$"), redactor.hiding_errors():
        raise RuntimeError(f"stopped: {CANARY}")
