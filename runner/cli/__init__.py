"""Command-line front end: Helm's commands, flags, errors and printers, one module per
command family (each builds its commands with `build(name)`). The only part of
deploy-runner that prints; the actions below it return data.

Flags are parsed as pflag parses them (runner.cli.pflag) and commands found as cobra
finds them (runner.cli.cobra), so the command line answers as Helm's does. Every
error a user can cause ends as one `Error: ...` line on stderr and a non-zero exit
code (runner.cli.errors); a traceback is shown only with --debug.

The program names itself by the name it was invoked by (program_name): deploy-runner,
or `helm` for a link or copy so named, which then also answers `version` as the Helm
4.1.4 it stands in for (runner.cli.version), so tools that drive the helm binary
(helmfile) accept it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from runner.cli.cobra import Command, UnknownCommand, check_args, find
from runner.cli.errors import run_reporting_errors
from runner.cli.pflag import FlagError, HelpRequested
from runner.gcpause import no_gc

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from runner.cli.pflag import Namespace

# name, aliases, Helm's short description, the module that builds it; in the order Helm's
# root adds them, which is the order of cobra's suggestions for a mistyped command.
COMMANDS = (
    ("dependency", ("dep", "dependencies"), "manage a chart's dependencies", "dependency"),
    ("pull", ("fetch",), "download a chart from a repository and (optionally) unpack it in local directory", "pull"),
    ("show", ("inspect",), "show information of a chart", "show"),
    ("lint", (), "examine a chart for possible issues", "lint"),
    ("package", (), "package a chart directory into a chart archive", "package"),
    ("repo", (), "add, list, remove, update, and index chart repositories", "repo"),
    ("search", (), "search for a keyword in charts", "search"),
    ("verify", (), "verify that a chart at the given path has been signed and is valid", "pull"),
    ("get", (), "download extended information of a named release", "release_info"),
    ("history", ("hist",), "fetch release history", "release_info"),
    ("install", (), "install a chart", "release"),
    ("list", ("ls",), "list releases", "list_releases"),
    ("test", (), "run tests for a release", "release"),
    ("rollback", (), "roll back a release to a previous revision", "release"),
    ("status", (), "display the status of the named release", "release_info"),
    ("template", (), "locally render templates", "template"),
    ("uninstall", ("del", "delete", "un"), "uninstall a release", "release"),
    ("upgrade", (), "upgrade a release", "release"),
    ("version", (), "print the client version information", "version"),
    ("registry", (), "login to or logout from a registry", "registry"),
    ("push", (), "push a chart to remote", "package"),
    # deploy-runner's own
    ("run", (), "deploy the releases of a spec (deploy-runner.yaml)", "run"),
    ("diff", (), "show what an upgrade would change", "diff"),
    ("schema", (), "print the JSON Schema of a spec (deploy-runner.yaml)", "schema"),
    ("preview", (), "manage pull-request previews", "preview"),
    ("drift", (), "report what in the cluster is not what the spec deploys", "drift"),
    ("action", (), "run as a GitHub Action step (inputs from INPUT_* variables)", "action"),
)

ROOT_LONG = """deploy-runner renders and deploys Helm charts as Helm 4.1.4 does: the same commands,
flags, output and release records, so scripts written for helm keep working.

Environment variables (read as Helm reads them):

| Name                               | Description                                                          |
|------------------------------------|----------------------------------------------------------------------|
| $HELM_CACHE_HOME                   | set an alternative location for storing cached files.                |
| $HELM_CONFIG_HOME                  | set an alternative location for storing Helm configuration.          |
| $HELM_DATA_HOME                    | set an alternative location for storing Helm data.                   |
| $HELM_DEBUG                        | indicate whether or not Helm is running in Debug mode                |
| $HELM_DRIVER                       | set the backend storage driver. Values are: configmap, secret, memory. |
| $HELM_MAX_HISTORY                  | set the maximum number of helm release history.                      |
| $HELM_NAMESPACE                    | set the namespace used for the helm operations.                      |
| $HELM_NO_PLUGINS                   | disable plugins. Set HELM_NO_PLUGINS=1 to disable plugins.           |
| $HELM_PLUGINS                      | set the path to the plugins directory                                |
| $HELM_REGISTRY_CONFIG              | set the path to the registry config file.                            |
| $HELM_REPOSITORY_CACHE             | set the path to the repository cache directory                       |
| $HELM_REPOSITORY_CONFIG            | set the path to the repositories file.                               |
| $KUBECONFIG                        | set an alternative Kubernetes configuration file (default "~/.kube/config") |
| $HELM_KUBEAPISERVER                | set the Kubernetes API Server Endpoint for authentication            |
| $HELM_KUBECAFILE                   | set the Kubernetes certificate authority file.                       |
| $HELM_KUBEASGROUPS                 | set the Groups to use for impersonation using a comma-separated list. |
| $HELM_KUBEASUSER                   | set the Username to impersonate for the operation.                   |
| $HELM_KUBECONTEXT                  | set the name of the kubeconfig context.                              |
| $HELM_KUBETOKEN                    | set the Bearer KubeToken used for authentication.                    |
| $HELM_KUBEINSECURE_SKIP_TLS_VERIFY | indicate if the Kubernetes API server's certificate validation should be skipped (insecure) |
| $HELM_KUBETLS_SERVER_NAME          | set the server name used to validate the Kubernetes API server certificate |
| $HELM_BURST_LIMIT                  | set the default burst limit in the case the server contains many CRDs (default 100, -1 to disable) |
| $HELM_QPS                          | set the Queries Per Second in cases where a high number of calls exceed the option for higher burst values |
"""


PROGRAM = "deploy-runner"


def program_name(argv0: str) -> str:
    """The name the program was invoked by, as every message and help text names it: the
    base name of argv[0] (a `helm` link gives `helm`). `python -m runner.cli` (argv[0] is
    the module's file), `python -c` and an empty argv[0] are deploy-runner."""
    import os

    name = os.path.basename(argv0)
    if not name or name == "-c" or name.endswith(".py"):
        return PROGRAM
    return name


def root_command(program: str = PROGRAM) -> Command:
    """The command tree: the root (named `program`) with Helm's global flags, a stub for
    each command."""
    from runner.cli.flags import global_flags

    root = Command(program, "Render and deploy Helm charts, byte-compatible with Helm 4.",
                   long=ROOT_LONG)
    global_flags(root.persistent)
    for name, aliases, short, module in COMMANDS:
        root.add(Command(name, short, aliases=aliases, module=module))
    root.add(Command("help [command]", "Help about any command", run=_help,
                     long="Help provides help for any command in the application.\n"
                          f"Simply type {program} help [path to command] for full details."))
    return root


def main(argv: Sequence[str] | None = None, *, program: str | None = None) -> int:
    """Run a command; as the program itself (no `argv`), named by its argv[0] and exiting
    without interpreter teardown. Called with `argv`, it is deploy-runner unless `program`
    names it."""
    arguments = sys.argv[1:] if argv is None else list(argv)
    if program is None:
        program = program_name(sys.argv[0]) if argv is None else PROGRAM
    parsed: list[Namespace] = []

    def debug() -> bool:
        return bool(getattr(parsed[0], "debug", False)) if parsed else "--debug" in arguments

    if argv is None:
        _stop_on_signals()  # the program's own process only, not a caller's
    code = run_reporting_errors(lambda: _run(program, arguments, parsed), debug)
    if argv is None:
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """Flush and leave at once when nothing waits for exit (no other thread, no atexit hook
    but the known ones, run here): tearing down every module and object costs more than a
    small render, or a read command's whole work."""
    import _thread
    import atexit
    import os

    known = _known_exit_hooks()
    if atexit._ncallbacks() > len(known) or _thread._count():  # noqa: SLF001 - threads other than this one
        return
    for hook in known:
        hook()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return  # let the interpreter report it as it would
    os._exit(code)


def _known_exit_hooks() -> list[Callable[[], object]]:
    """The exit hooks that every command talking to a cluster registers, in atexit's order
    (last registered first): weakref.finalize's (the finalizers marked to run at exit, as
    the connection pools of requests' urllib3 register them) and logging's (its handlers
    flushed).
    atexit has no list to read; each is known by its module's own mark."""
    hooks: list[Callable[[], object]] = []
    weakref = sys.modules.get("weakref")
    if weakref is not None and weakref.finalize._registered_with_atexit:  # noqa: SLF001
        hooks.append(weakref.finalize._exitfunc)  # noqa: SLF001 - what atexit would run
    logging = sys.modules.get("logging")
    if logging is not None:  # logging registers its hook on import
        hooks.append(logging.shutdown)
    return hooks


def _run(program: str, argv: list[str], parsed: list[Namespace]) -> int:
    """cobra's ExecuteC: find the command, parse its flags, check its arguments, run it.
    The parsed flags go into `parsed` for the error wrapper; the handler reads the
    program's name as `args.program`."""
    from runner.cli.flags import apply_global_flags

    try:
        command, rest = find(root_command(program), argv)
    except UnknownCommand as err:
        print(f"Error: {err}\nRun '{program} --help' for usage.", file=sys.stderr)
        return 1
    deprecations: list[str] = []
    try:
        args, positional = command.all_flags().parse(rest, deprecations.append)
    except HelpRequested:
        sys.stdout.write(command.help_text())
        return 0
    except FlagError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    parsed.append(args)
    for line in deprecations:  # cobra prints them once the whole line parsed
        print(line, file=sys.stderr)
    if args.help or not command.runnable():
        sys.stdout.write(command.help_text())
        return 0
    try:
        check_args(command, positional)
    except FlagError as err:
        print(f"Error: {err}", file=sys.stderr)
        return 1
    apply_global_flags(args)
    args.args = positional
    args.program = program
    run = command.run
    assert run is not None  # runnable() said so
    from runner.deepstack import run_deep

    with no_gc():
        return run_deep(lambda: run(args))  # deep input has the stack it needs


def _stop_on_signals() -> None:
    """SIGTERM (`docker stop`, a cancelled CI job) stops the command as Ctrl-C does, so it
    ends as Helm's install and upgrade do on either: the release recorded failed, the lock
    released (runner.errors.Terminated reaches the work through runner.deepstack).
    SIGINT is handled even when the process started with it ignored (a background job of
    a script), as Go's signal.Notify in Helm does."""
    import _signal  # not signal: importing it costs ~0.3 ms at every start

    from runner.errors import Terminated

    def terminate(signal_number: int, _frame: object) -> None:
        raise Terminated(signal_number)

    _signal.signal(_signal.SIGTERM, terminate)
    _signal.signal(_signal.SIGINT, _signal.default_int_handler)


def _help(args: Namespace) -> int:
    """cobra's help command: the help of the command the arguments name."""
    root = root_command(args.program)
    try:
        command, _ = find(root, args.args)
    except UnknownCommand:
        command = None
    if command is None:
        topic = " ".join(f"`{word}`" for word in args.args)
        sys.stderr.write(f"Unknown help topic [{topic}]\n{root.usage_text()}")
        return 0
    sys.stdout.write(command.help_text())
    return 0
