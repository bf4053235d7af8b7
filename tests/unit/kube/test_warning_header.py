"""The API server's Warning headers as client-go parses and its WarningLogger reports them
(apimachinery's ParseWarningHeaders; rest.WarningLogger in client-go v0.35), through
KubeClient.on_warning. tests/e2e/test_apply_fidelity.py compares the printed lines with
helm's on the testbed."""

from __future__ import annotations

import json

from runner.kube.client import KubeClient
from runner.kube.transport import Reply
from runner.kube.warning_header import logged_line, parse_warning_headers, warnings_to_report


def test_a_header_holds_code_agent_quoted_text_and_an_optional_date():
    assert parse_warning_headers(['299 - "unknown field \\"spec.color\\""']) == [(299, 'unknown field "spec.color"')]
    assert parse_warning_headers(['299 kube-apiserver "a" "Tue, 15 Nov 1994 08:12:31 GMT"']) == [(299, "a")]


def test_comma_separated_warnings_each_count_and_a_malformed_one_ends_its_header():
    headers = ['299 - "first", 299 - "second"', '299 - "ok", junk', '99 - "two digits"', '299 - "last"']
    assert parse_warning_headers(headers) == [(299, "first"), (299, "second"), (299, "ok"), (299, "last")]


def test_only_code_299_with_text_is_reported():
    assert warnings_to_report(['199 - "misc"', '299 - ""', '299 - "deprecated"']) == ["deprecated"]


def test_the_logged_line_is_klogs_info_line_from_client_gos_warnings_go():
    line = logged_line('example.com/v1beta1 Widget is deprecated; use example.com/v1')
    head, _, message = line.partition("] ")
    assert head.startswith("I") and head.endswith(" warnings.go:107")
    assert message == '"Warning: example.com/v1beta1 Widget is deprecated; use example.com/v1"'


class _Transport:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply

    def request(self, method, path, query, headers, body):
        if path == "/version":
            return Reply(200, json.dumps({"gitVersion": "v1.35.4"}).encode())
        return self.reply

    def close(self) -> None:
        pass


def test_every_answers_warnings_are_told_unless_the_request_asks_for_quiet():
    told: list[str] = []
    client = KubeClient(_Transport(Reply(200, b"{}", warnings=('299 - "a", 299 - "b"', '299 - "a"'))),
                        on_warning=told.append)
    client.request("GET", "/api/v1/namespaces/x/configmaps/y")
    assert told == ["a", "b", "a"]  # client-go's logger leaves no repeat out
    client.request("PATCH", "/api/v1/namespaces/x/configmaps/y", warnings=False)
    assert told == ["a", "b", "a"]

