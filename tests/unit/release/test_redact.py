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


# -- public identifiers: a secret inside one is shown there, nowhere else ------------------

CREDENTIALS = """\
apiVersion: v1
kind: Secret
metadata: {name: elasticsearch-master-credentials, namespace: search}
data:
  username: ZWxhc3RpYw==
  password: UzNjcjN0LXB3
---
apiVersion: v1
kind: Secret
metadata: {name: grafana}
stringData:
  admin-user: admin
  admin-password: hunter22
"""


def _learned(manifest: str = CREDENTIALS) -> Redactor:
    redactor = Redactor()
    redactor.add_manifest(manifest)
    return redactor


def test_a_secret_inside_an_objects_name_or_a_data_key_is_shown_there() -> None:
    """`elastic` (a username) inside the name of the Secret holding it, `admin` inside the
    keys of grafana's Secret: the cluster shows these to anyone who lists the objects."""
    redactor = _learned()

    for text in ("Secret/elasticsearch-master-credentials",
                 "search, elasticsearch-master-credentials, Secret (v1) has changed:",
                 "+   admin-password: '++++++++'", "  admin-user:"):
        assert redactor.redact(text) == text
    assert redactor.redact("- name: elasticsearch-master-credentials\n  key: admin-user\n") == \
        "- name: elasticsearch-master-credentials\n  key: admin-user\n"


def test_the_same_secret_elsewhere_is_masked_even_glued_to_other_text() -> None:
    redactor = _learned()

    assert redactor.redact("login elastic / S3cr3t-pw") == f"login {MASK} / {MASK}"
    assert redactor.redact("docker.elastic.co/elasticity") == f"docker.{MASK}.co/{MASK}ity"
    assert redactor.redact("admin-user: admin") == f"admin-user: {MASK}"
    assert redactor.redact("Secret/elasticsearch-master-credentials holds elastic") == \
        f"Secret/elasticsearch-master-credentials holds {MASK}"
    # near an identifier is not inside one
    assert redactor.redact("adminuser admin_password") == f"{MASK}user {MASK}_password"


def test_base64_forms_of_a_secret_are_masked_beside_an_identifier() -> None:
    redactor = _learned()
    whole = base64.b64encode(b"elastic").decode()
    inside = base64.b64encode(b"user:elastic").decode()

    assert redactor.redact(f"elasticsearch-master-credentials {whole}") == f"elasticsearch-master-credentials {MASK}"
    assert "elastic" not in base64.b64decode(redactor.redact(inside).replace(MASK, "") + "===").decode(errors="replace")
    assert redactor.redact(f"username: {whole}") == f"username: {MASK}"


def test_a_secret_holding_or_equal_to_an_identifier_is_masked_whole() -> None:
    redactor = _learned(CREDENTIALS + """\
---
apiVersion: v1
kind: Secret
metadata: {name: tokens}
stringData:
  elasticsearch-master-credentials-backup: elasticsearch-master-credentials-backup
  overlap: credentials-and-more
""")

    assert redactor.redact("elasticsearch-master-credentials-backup") == MASK
    # overlapping the end of an identifier: the whole secret goes, the identifier's start stays
    assert redactor.redact("elasticsearch-master-credentials-and-more") == f"elasticsearch-master-{MASK}"


def test_a_secret_overlapping_a_sheltered_one_is_still_found_and_masked() -> None:
    """`elasticsearch-m` lies inside the identifier and stays; `search-master-pw9` starts
    inside it and goes further: masked whole, and secrets that overlap go as one."""
    redactor = Redactor(["elasticsearch-m", "search-master-pw9", "first-half", "half-and-more"])
    redactor.add_public(["elasticsearch-master"])

    assert redactor.redact("elasticsearch-master") == "elasticsearch-master"
    assert redactor.redact("elasticsearch-master-pw9") == f"elastic{MASK}"
    assert redactor.redact("a first-half-and-more b") == f"a {MASK} b"


def test_a_releases_name_namespace_and_hooks_are_identifiers() -> None:
    hook = Hook(name="elastic-setup", kind="Job", path="t/h.yaml", events=["post-install"],
                manifest="apiVersion: batch/v1\nkind: Job\nmetadata: {name: elasticsearch-setup}\n")
    release = Release(name="elasticsearch", namespace="elastic-stack", version=1, info=Info(),
                      manifest=CREDENTIALS, hooks=[hook])
    redactor = Redactor()
    redactor.add_release(release)

    shown = "pod elasticsearch-setup-x7k2p in elastic-stack of release elasticsearch"
    assert redactor.redact(shown) == shown
    assert redactor.redact("elastic") == MASK


def test_identifiers_learned_alone_shelter_what_is_learned_later() -> None:
    """A plan learns the identifiers of what it diffs and no Secret; a deploy learns the
    Secret after: the objects keep the names the plan gave them."""
    from runner.encoding import goyaml

    redactor = Redactor()
    redactor.add_identifiers(goyaml.load_all(CREDENTIALS))
    assert redactor.redact("Secret/elasticsearch-master-credentials elastic") == \
        "Secret/elasticsearch-master-credentials elastic"
    redactor.add("elastic")
    assert redactor.redact("Secret/elasticsearch-master-credentials elastic") == \
        f"Secret/elasticsearch-master-credentials {MASK}"


def test_redact_data_keeps_identifiers_in_every_string() -> None:
    redactor = _learned()
    data = {"changes": [{"kind": "Secret", "name": "elasticsearch-master-credentials",
                         "diff": "  username: elastic\n  admin-password: hunter22\n"}]}

    assert redactor.redact_data(data) == {"changes": [{
        "kind": "Secret", "name": "elasticsearch-master-credentials",
        "diff": f"  username: {MASK}\n  admin-password: {MASK}\n"}]}


def test_identifiers_can_be_learned_while_other_threads_redact() -> None:
    """Releases learn their identifiers and secrets while others print: a secret outside
    identifiers is masked throughout, one inside a known identifier never."""
    import threading

    redactor = _learned()
    errors: list[BaseException] = []

    def learn() -> None:
        for n in range(300):
            redactor.add_public([f"object-number-{n}"])
            redactor.add(f"secret-number-{n}")

    def redact() -> None:
        try:
            for _ in range(300):
                assert redactor.redact("elasticsearch-master-credentials elastic") == \
                    f"elasticsearch-master-credentials {MASK}"
        except BaseException as err:  # noqa: BLE001 - reported by the main thread
            errors.append(err)

    threads = [threading.Thread(target=learn), *(threading.Thread(target=redact) for _ in range(3))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert redactor.redact("object-number-299 secret-number-299") == f"object-number-299 {MASK}"


def test_the_forms_pattern_finds_at_each_offset_the_longest_form_as_an_alternation_does() -> None:
    """forms_pattern lays the forms out as a trie; Python's own alternation of them, longest
    first, is the reference: from every offset, both find the same form at the same place."""
    import random
    import re

    from runner.release.redact import forms_pattern

    rng = random.Random(26)
    alphabet = "ab.c*"  # few letters: forms share prefixes and end inside each other; regex syntax
    for _ in range(300):
        forms = {"".join(rng.choice(alphabet) for _ in range(rng.randint(3, 9))) for _ in range(rng.randint(1, 12))}
        forms |= {form + "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))  # longer forms
                  for form in list(forms)[:2]}                                           # beginning as others
        reference = re.compile("|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)))
        trie = forms_pattern(forms)
        # the forms themselves, glued to each other and to other characters
        text = "".join(rng.choice([*forms, *alphabet, "x"]) for _ in range(30))
        for start in range(len(text) + 1):
            want, got = reference.search(text, start), trie.search(text, start)
            assert (got and (got.span(), got.group())) == (want and (want.span(), want.group())), (forms, text)


def test_a_redactor_with_many_secrets_and_long_ones_hides_each() -> None:
    secrets = [f"secret-{i:03}-{'x' * i}" for i in range(150)] + ["-----BEGIN CERT-----\n" + "A" * 3000]
    redactor = Redactor(secrets)
    redactor.add_public(["secret-007-xxxxxxx-configmap"])  # a public word holding one: shown there
    text = " ".join(secrets[::7]) + " secret-007-xxxxxxx-configmap"
    shown, _, public = redactor.redact(text).rpartition(" ")
    assert not any(secret in shown for secret in secrets[::7])
    assert shown == " ".join([MASK] * len(secrets[::7]))
    assert public == "secret-007-xxxxxxx-configmap"
