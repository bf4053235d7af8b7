"""runner.golang.slog: Helm 4's log lines as its slog TextHandler writes them (the expected
lines are Helm 4.1.4's own, from `helm install --debug` on the testbed)."""

from __future__ import annotations

from runner.golang.slog import text_line


def test_lines_as_helm_writes_them() -> None:
    assert text_line("DEBUG", "creating resource(s)", {"resources": 3}) == (
        'level=DEBUG msg="creating resource(s)" resources=3')
    assert text_line("DEBUG", "using server-side apply for resource creation",
                     {"forceConflicts": False, "dryRun": False, "fieldValidationDirective": "Strict"}) == (
        'level=DEBUG msg="using server-side apply for resource creation" forceConflicts=false dryRun=false '
        "fieldValidationDirective=Strict")
    assert text_line("DEBUG", "Created resource via patch",
                     {"namespace": "dbg", "name": "d1-demo", "gvk": "/v1, Kind=ServiceAccount"}) == (
        'level=DEBUG msg="Created resource via patch" namespace=dbg name=d1-demo gvk="/v1, Kind=ServiceAccount"')
    assert text_line("DEBUG", "ignoring delete failure", {"error": 'configmaps "h1-hook" not found'}) == (
        'level=DEBUG msg="ignoring delete failure" error="configmaps \\"h1-hook\\" not found"')
    assert text_line("DEBUG", "Original chart version", {"version": ""}) == (
        'level=DEBUG msg="Original chart version" version=""')
    assert text_line("WARN", "upgrade failed", {"error": "a\nb"}) == (
        'level=WARN msg="upgrade failed" error="a\\nb"')


def test_a_backslash_alone_is_not_quoted_and_paths_are_bare() -> None:
    assert text_line("DEBUG", "Chart path", {"path": "/tmp/p2c/demo", "w": "C:\\x"}) == (
        'level=DEBUG msg="Chart path" path=/tmp/p2c/demo w=C:\\x')
