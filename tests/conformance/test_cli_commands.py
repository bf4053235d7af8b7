"""Every command's command line against Helm 4.1.4: stdout, stderr and exit code.

Unknown commands (cobra's suggestions) and flags on every command, argument counts,
flag values pflag refuses, errors Helm reports before it reaches a cluster, global
flags after the command, each command's --help (every flag's name, type, default and
description), the version command's shape, and a chart's schema failure. Offline:
KUBECONFIG names a missing file for both tools and no case reaches a cluster. Helm
runs every case in the test run; nothing expected is stored.

Helm has commands deploy-runner does not (completion, create, env, plugin, search
hub): typos close to those are left out of the suggestion cases.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from runner.cli import COMMANDS
from tests.conformance.cli_helpers import Result, linked_as, module_in
from tests.conformance.cli_helpers import helm_in as _helm
from tests.conformance.cli_helpers import ours_in as _ours
from tests.conformance.harness import CHARTS_DIR

# Every command path deploy-runner has (and Helm too).
COMMAND_PATHS: tuple[tuple[str, ...], ...] = (
    ("template",), ("lint",), ("install",), ("upgrade",), ("rollback",), ("uninstall",),
    ("status",), ("history",), ("get", "all"), ("get", "values"), ("get", "manifest"),
    ("get", "notes"), ("get", "hooks"), ("get", "metadata"), ("test",), ("list",), ("pull",),
    ("verify",), ("show", "all"), ("show", "chart"), ("show", "values"), ("show", "readme"),
    ("show", "crds"), ("package",), ("push",), ("dependency", "list"), ("dependency", "update"),
    ("dependency", "build"), ("repo", "add"), ("repo", "list"), ("repo", "update"),
    ("repo", "remove"), ("repo", "index"), ("registry", "login"), ("registry", "logout"),
    ("search", "repo"), ("version",),
)
GROUPS: tuple[tuple[str, ...], ...] = (
    (), ("get",), ("show",), ("dependency",), ("repo",), ("registry",), ("search",),
)

CASES: tuple[tuple[str, ...], ...] = (
    # unknown flags: one line, exit 1, on every command (long and short spellings)
    *((*path, "--sett") for path in COMMAND_PATHS),
    *((*path, "x", "-Z") for path in COMMAND_PATHS),
    ("--bogus",), ("--bogus", "install"), ("install", "--sett", "r", "ch"), ("install", "---x"),
    ("install", "--=x"), ("install", "-n"), ("-n",),
    # unknown commands: cobra's suggestions
    ("templte",), ("instal",), ("ugprade",), ("lst",), ("rollbak",), ("sho",), ("TEMPLATE",),
    ("xyzzy",), ("templte", "r", "ch", "--set", "a=b"),
    # groups without a known subcommand print their help
    *GROUPS, ("repo", "bogus"), ("get", "bogus", "x"),
    # argument counts
    ("status",), ("status", "a", "b"), ("history",), ("get", "values"), ("get", "all", "a", "b"),
    ("test",), ("test", "a", "b"), ("list", "x"), ("version", "x"), ("install",), ("upgrade", "a"),
    ("rollback",), ("uninstall",), ("lint",), ("pull",), ("push", "a"), ("repo", "add", "a"),
    ("repo", "remove"), ("repo", "index"), ("registry", "login"), ("registry", "logout"),
    ("dependency", "list", "a", "b"), ("show", "values"), ("verify",), ("repo", "list", "x"),
    ("package",), ("template",),
    # errors Helm reports before it reaches a cluster: one line, no usage
    ("rollback", "hw", "abc"), ("rollback", "hw", "1x", "--debug"),
    ("install", "hw", "ch", "--post-renderer", "nope"), ("upgrade", "hw", "ch", "--post-renderer", "nope"),
    ("install", "a", "b", "c", "d"), ("install", "a"), ("install", "-g", "a", "ch"),
    ("template", "a", "b", "c", "d"), ("uninstall", "a", "--cascade", "bogus"),
    ("install", "X", "ch", "--dry-run=client"), ("install", "X", "ch", "--dry-run=client", "--debug"),
    # --debug's log lines up to the first failure (no cluster answers here), and template's
    ("template", "r", "ch", "--debug"), ("template", "r", "ch", "--dry-run=server", "--debug"),
    ("install", "r", "ch", "--debug"), ("install", "r", "ch"),
    # flag values pflag (or the command) refuses
    ("install", "r", "ch", "--wait=foo"), ("install", "r", "ch", "--dry-run=foo"),
    ("install", "r", "ch", "-o", "xml"), ("install", "r", "ch", "-l", "x"),
    ("install", "r", "ch", "--labels", "a=b,c=d,e"), ("template", "r", "ch", "--labels", "a=b,c", "-l", "x"), ("install", "r", "ch", "--server-side=maybe"),
    ("install", "r", "ch", "--create-namespace=2"), ("list", "--max", "x"), ("list", "-m1x"),
    ("install", "r", "ch", "--qps", "x"), ("install", "r", "ch", "--burst-limit", "x"),
    ("upgrade", "r", "ch", "--history-max", "x"), ("status", "x", "--revision", "x"),
    ("search", "repo", "--max-col-width", "-1"), ("list", "--time-format"),
    ("template", "r", "ch", "--dry-run=none"), ("template", "r", "ch", "--dry-run=foo"),
    ("template", "r", "ch", "--wait=foo"), ("template", "r", "ch", "--timeout", "5"),
    # global flags after the command, and install's flags on template
    ("template", "r", "ch", "-n", "other"), ("template", "r", "ch", "--namespace=other", "--kube-context", "c"),
    ("template", "r", "ch", "--kubeconfig", "/nonexistent", "--burst-limit", "5", "--qps", "2.5"),
    ("template", "r", "ch", "--create-namespace", "--wait", "--timeout", "1m", "--dry-run"),
    ("template", "r", "ch", "--dry-run=client", "--hide-notes", "--server-side=false", "-l", "a=b"),
    ("lint", "ch", "--namespace", "x"), ("template", "r", "ch", "--atomic"),
    ("template", "r", "ch", "--", "-x"), ("template", "r", "ch", "-n", "--", "x"),
    # help topics
    ("help", "bogus"),
)

# Global flags deploy-runner adds to Helm's: the EKS login (docs/eks.md), on every command.
OUR_GLOBAL_FLAGS = {"--eks-cluster", "--eks-region", "--eks-role-arn"}
# Flags deploy-runner adds to Helm's (shown in its help, absent from Helm's), by command.
_HOOK_LOGS = {"--no-log-output", "--hook-log-lines"}  # the hook output log proposal's flag, and our cap
OUR_FLAGS = {
    "install": {"--release-history-max", "--include-history-values", "--wait-for-lock", "--secret-values",
                "--no-progress", *_HOOK_LOGS},
    "upgrade": {"--release-history-max", "--include-history-values", "--wait-for-lock", "--secret-values",
                "--no-progress", *_HOOK_LOGS},
    "rollback": {"--output", "--wait-for-lock", "--release-history-max", "--include-history-values",
                 "--no-progress", *_HOOK_LOGS},
    "uninstall": {"--wait-for-lock", "--no-progress", *_HOOK_LOGS},
    "test": {"--output", "--hide-notes", "--no-progress", *_HOOK_LOGS},
    "template": {"--secret-values", "--release-history-max", "--include-history-values"},
    "lint": {"--secret-values"},
}
# Helm's flags deploy-runner does not take yet (refused as unknown), by command.
NOT_YET = {
    "template": {"--enable-dns", "--force-replace", "--name-template"},
    "install": {"--enable-dns", "--force-replace", "--name-template"},
    "upgrade": {"--enable-dns"},
    "rollback": {"--force-replace"},
    "package": {"--ca-file", "--cert-file", "--insecure-skip-tls-verify", "--key-file", "--password",
                "--plain-http", "--username"},
    "dependency list": {"--max-col-width"},
    "repo add": {"--allow-deprecated-repos", "--password-stdin", "--timeout"},
    "repo update": {"--timeout"},
    "repo list": {"--no-headers", "--output"},
}
_FLAG_LINE = re.compile(r"^  (?:-(\S), )?\s*--(\S+?)(?: (\S+))?\s{3,}(.*)$")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli-commands")
    (root / "ch" / "templates").mkdir(parents=True)
    (root / "ch" / "Chart.yaml").write_text("apiVersion: v2\nname: ch\nversion: 0.1.0\n")
    (root / "ch" / "templates" / "cm.yaml").write_text(
        "ns: {{ .Release.Namespace }}\nname: {{ .Release.Name }}\n")
    return root


@pytest.mark.parametrize("argv", CASES, ids=" ".join)
def test_command_line_as_helm(argv: tuple[str, ...], workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours, helm = _ours(workdir, list(argv), monkeypatch), _helm(workdir, list(argv))
    if argv in GROUPS or argv[:1] == ("help",) or argv in (("repo", "bogus"), ("get", "bogus", "x")):
        # A group's help: Helm lists commands we lack.
        assert (ours[2], bool(ours[0]), bool(ours[1])) == (helm[2], bool(helm[0]), bool(helm[1]))
        assert _sections(ours[0] or ours[1]) <= _sections(helm[0] or helm[1])
        return
    assert ours == helm


# Where cobra prints the program's name: an unknown command (its suggestions and `Run '...
# --help'`), argument counts (the command's path, its usage line), a help topic not found.
NAMED_CASES: tuple[tuple[str, ...], ...] = (
    ("templte",), ("lst", "--debug"), ("status",), ("get", "all", "a", "b"), ("repo", "add", "a"),
    ("show", "values"), ("version", "x"), ("help", "bogus"),
)


@pytest.mark.parametrize("argv", NAMED_CASES, ids=" ".join)
def test_a_link_named_helm_answers_as_helm(argv: tuple[str, ...], workdir: Path) -> None:
    """The installed program through a link named `helm`: Helm's name, byte for byte."""
    ours, helm = linked_as(workdir, "helm", list(argv)), _helm(workdir, list(argv))
    if argv[:1] == ("help",):  # the root's usage: Helm lists commands we lack
        assert (ours[2], ours[0], ours[1].splitlines()[:3]) == (helm[2], helm[0], helm[1].splitlines()[:3])
        return
    assert ours == helm


@pytest.mark.parametrize("run", [lambda d, a: linked_as(d, "deploy-runner", a), module_in],
                         ids=["deploy-runner", "python -m runner.cli"])
@pytest.mark.parametrize("argv", NAMED_CASES[:-1], ids=" ".join)
def test_the_program_names_itself_deploy_runner(argv: tuple[str, ...], run: Callable[[Path, list[str]], Result],
                                                workdir: Path) -> None:
    """Under its own name (and as `python -m runner.cli`) it says deploy-runner where Helm says helm."""
    helm = _helm(workdir, list(argv))
    assert "helm" in helm[1]
    assert run(workdir, list(argv)) == (helm[0], helm[1].replace("helm", "deploy-runner"), helm[2])


# deploy-runner's own commands (Helm has none of them): left out of the root help's comparison.
# deploy-runner's own commands: those the CLI's table lists after Helm's, from `run` on
OUR_COMMANDS = tuple(name for name, *_ in COMMANDS[[entry[0] for entry in COMMANDS].index("run"):])


def _sections(text: str) -> set[str]:
    """The lines of a help's Available Commands and Flags sections (but `version`, whose
    text is about deploy-runner, and our own commands)."""
    return {line for line in text.splitlines()
            if re.match(r"^  \S", line) and "help for" not in line and not line.startswith("  version ")
            and not any(line.startswith(f"  {name} ") for name in OUR_COMMANDS)}


def _flag_lines(text: str) -> dict[str, tuple[str, ...]]:
    """--help's flag lines: `--name` -> (shorthand, type, description with its default)."""
    found: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        match = _FLAG_LINE.match(line)
        if match and match.group(2) != "help":
            short, name, kind, usage = match.groups()
            found[f"--{name}"] = (short or "", kind or "", usage)
    return found


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_help_shows_every_flag_as_helm_does(path: tuple[str, ...], workdir: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ours = _flag_lines(_ours(workdir, [*path, "--help"], monkeypatch)[0])
    helm = _flag_lines(_helm(workdir, [*path, "--help"])[0])
    key = " ".join(path)
    assert {f: ours[f] for f in ours if f in helm} == {f: helm[f] for f in helm if f in ours}
    assert set(ours) - set(helm) == OUR_FLAGS.get(key, set()) | OUR_GLOBAL_FLAGS
    assert set(helm) - set(ours) == NOT_YET.get(key, set())


def test_global_flags_are_helms(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ours = _flag_lines(_ours(workdir, ["--help"], monkeypatch)[0])
    helm = _flag_lines(_helm(workdir, ["--help"])[0])
    assert {f: v for f, v in ours.items() if f not in OUR_GLOBAL_FLAGS} == helm
    assert set(ours) - set(helm) == OUR_GLOBAL_FLAGS


def test_global_flag_defaults_come_from_helms_variables(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variables = {"HELM_NAMESPACE": "from-env", "HELM_KUBECONTEXT": "ctx", "HELM_BURST_LIMIT": "7",
                 "HELM_KUBEASGROUPS": "a,b", "HELM_REPOSITORY_CONFIG": "/r.yaml", "HELM_DEBUG": "1",
                 "HELM_KUBEINSECURE_SKIP_TLS_VERIFY": "true", "HELM_QPS": "2.5", "HELM_CACHE_HOME": "/c"}
    ours = _flag_lines(_ours(workdir, ["version", "--help"], monkeypatch, variables)[0])
    assert {f: v for f, v in ours.items() if f not in OUR_GLOBAL_FLAGS} == _flag_lines(
        _helm(workdir, ["version", "--help"], variables)[0])


def test_helm_namespace_is_the_template_namespace(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    variables = {"HELM_NAMESPACE": "from-env"}
    ours = _ours(workdir, ["template", "r", "ch"], monkeypatch, variables)
    assert ours == _helm(workdir, ["template", "r", "ch"], variables)
    assert "ns: from-env" in ours[0]
    flag = ["template", "r", "ch", "-n", "from-flag"]
    assert _ours(workdir, flag, monkeypatch, variables) == _helm(workdir, flag, variables)


KUBECONFIG_WITH_CONTEXTS = """apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
contexts:
- name: a
  context: {cluster: c, user: u, namespace: from-context}
- name: b
  context: {cluster: c, user: u}
current-context: a
users:
- name: u
  user: {token: x}
"""


@pytest.mark.parametrize("flags", [(), ("--kube-context", "b"), ("--kube-context", "missing"),
                                   ("-n", "from-flag"), ("--kubeconfig", "/nonexistent")], ids=repr)
def test_template_renders_for_the_kubeconfig_contexts_namespace(flags: tuple[str, ...], workdir: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Without -n, Helm's template takes the namespace from the kubeconfig's context."""
    config = workdir / "contexts.kubeconfig"
    config.write_text(KUBECONFIG_WITH_CONTEXTS)
    argv = ["template", "r", "ch", *flags]
    ours = _ours(workdir, argv, monkeypatch, {"KUBECONFIG": str(config)})
    assert ours == _helm(workdir, argv, {"KUBECONFIG": str(config)})
    if not flags:
        assert "ns: from-context" in ours[0]


_BUILD_INFO = re.compile(r'version\.BuildInfo\{Version:"v[0-9][^"]*", GitCommit:"[^"]*", '
                         r'GitTreeState:"[^"]*", GoVersion:"[^"]*", KubeClientVersion:"v1\.\d+"\}\n')


@pytest.mark.parametrize(("argv", "shape"), [
    (["version"], _BUILD_INFO),
    (["version", "--short"], re.compile(r"v\d+\.\d+\.\d+\S*\n")),
    (["version", "--template", "{{.Version}}|{{.KubeClientVersion}}"], re.compile(r"v\d+\.\d+\.\d+[^|]*\|v1\.\d+")),
    (["version", "--template", "{{"], re.compile(r"")),
])
def test_version_has_helms_shape(argv: list[str], shape: re.Pattern[str], workdir: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ours, helm = _ours(workdir, argv, monkeypatch), _helm(workdir, argv)
    assert (ours[2], bool(ours[1])) == (helm[2], bool(helm[1]))
    assert shape.fullmatch(helm[0]) and shape.fullmatch(ours[0])


@pytest.mark.parametrize("values", [("logLevel=bogus",), ("deploymentStrategy.type=x",), ("policy=bogus",),
                                    ("policy=sync", "logLevel=bogus", "logFormat=xml")])
def test_a_schema_failure_reads_as_helms(values: tuple[str, ...], workdir: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    argv = ["template", "r", str(CHARTS_DIR / "external-dns"), *(a for v in values for a in ("--set", v))]
    ours, helm = _ours(workdir, argv, monkeypatch), _helm(workdir, argv)
    assert helm[2] == 1 and "values don't meet the specifications" in helm[1]
    # Helm lists the properties in Go's map order (random from run to run): sorted here.
    assert (ours[0], ours[2], ours[1].splitlines()[:2]) == (helm[0], helm[2], helm[1].splitlines()[:2])
    assert sorted(ours[1].splitlines()) == sorted(helm[1].splitlines())
