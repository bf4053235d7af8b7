"""The flags Helm 4.1.4's commands share, declared as Helm declares them (pkg/cmd/flags.go,
pkg/cli/environment.go): same names, shorthands, types, defaults and descriptions.

- Global flags (every command takes them, before or after its name): the
  connection (`--kubeconfig`, `--kube-context`, `-n`, `--kube-apiserver`,
  `--kube-token`, ...), `--debug`, the repository/registry paths; their
  defaults come from Helm's HELM_* variables. deploy-runner adds the EKS login
  (`--eks-cluster`, `--eks-region`, `--eks-role-arn`; DEPLOY_RUNNER_EKS_* defaults).
- Values (`-f`, `--set`...), chart location (`--repo`, `--version`, TLS and
  credentials), `-o/--output`, `--post-renderer` (a `postrenderer/v1` plugin,
  looked up while flags are parsed, as pflag's Set does), `--dry-run`, `--wait`.
"""

from __future__ import annotations

import os
import sys

from runner.cli.pflag import FuncValue, Value
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:  # the post-renderer is imported when a flag is given: `template` without one stays lean
    from collections.abc import Callable
    from typing import Any

    from runner.actions.template import RenderOptions
    from runner.chart.sources.downloader import SourceOptions
    from runner.chart.uservalues import ValueOptions
    from runner.cli.pflag import FlagSet, Namespace
    from runner.postrender import PostRenderer

def default_keyring() -> str:
    """Helm's default --keyring: filepath.Join(homedir.HomeDir(), ".gnupg", "pubring.gpg").
    runner.chart.sources.paths has the same for spec runs; this copy keeps the chart-source
    package out of `template`'s start (tests/unit/test_cli_startup.py)."""
    return os.path.join(os.path.expanduser("~"), ".gnupg", "pubring.gpg")


SET_FLAGS = ("set", "set-string", "set-file", "set-json", "set-literal")


class PathValue(Value):
    """A path flag whose default Helm computes from HELM_* and XDG variables: shown in
    help, but "" here (not given), so the variables keep deciding."""

    def __init__(self, shown: Callable[[], str]) -> None:
        super().__init__("")
        self.shown = shown

    def default_text(self) -> str:
        return self.shown()


# ------------------------------------------------------------------ global flags

# Global path flags and the variable each one sets for the code that reads it.
PATH_FLAGS = {"registry-config": "HELM_REGISTRY_CONFIG", "repository-cache": "HELM_REPOSITORY_CACHE",
              "repository-config": "HELM_REPOSITORY_CONFIG", "content-cache": "HELM_CONTENT_CACHE"}


def _helm_path(flag: str) -> Callable[[], str]:
    def shown() -> str:
        from runner.chart.sources.paths import HelmPaths

        return str(getattr(HelmPaths.from_env(), flag.replace("-", "_")))
    return shown


def _env_int(name: str, default: int) -> int:
    text = os.environ.get(name)
    return int(text) if text is not None and text.lstrip("-").isdigit() else default


def _env_bool(name: str) -> bool:
    """envBoolOr: strconv.ParseBool of the variable, false when unset or invalid."""
    return os.environ.get(name, "") in ("1", "t", "T", "TRUE", "true", "True")


def global_flags(fs: FlagSet) -> None:
    """EnvSettings.AddFlags: the flags of every command, their defaults from HELM_*."""
    env = os.environ.get
    fs.int("burst-limit", "client-side default throttling limit", default=_env_int("HELM_BURST_LIMIT", 100))
    for name in ("color", "colour"):
        fs.string(name, "use colored output (never, auto, always)", default=env("HELM_COLOR") or "auto")
    fs.add("content-cache", PathValue(_helm_path("content-cache")),
           "path to the directory containing cached content (e.g. charts)")
    fs.bool("debug", "enable verbose output", default=_env_bool("HELM_DEBUG"))
    eks_flags(fs)
    fs.string("kube-apiserver", "the address and the port for the Kubernetes API server",
              default=env("HELM_KUBEAPISERVER", ""))
    groups = env("HELM_KUBEASGROUPS", "").strip(", ")
    fs.string_array("kube-as-group", "group to impersonate for the operation, this flag can be repeated "
                    "to specify multiple groups.", default=groups.split(",") if groups else [])
    fs.string("kube-as-user", "username to impersonate for the operation", default=env("HELM_KUBEASUSER", ""))
    fs.string("kube-ca-file", "the certificate authority file for the Kubernetes API server connection",
              default=env("HELM_KUBECAFILE", ""))
    fs.string("kube-context", "name of the kubeconfig context to use", default=env("HELM_KUBECONTEXT", ""))
    fs.bool("kube-insecure-skip-tls-verify", "if true, the Kubernetes API server's certificate will not be "
            "checked for validity. This will make your HTTPS connections insecure",
            default=_env_bool("HELM_KUBEINSECURE_SKIP_TLS_VERIFY"))
    fs.string("kube-tls-server-name", "server name to use for Kubernetes API server certificate validation. "
              "If it is not provided, the hostname used to contact the server is used",
              default=env("HELM_KUBETLS_SERVER_NAME", ""))
    fs.string("kube-token", "bearer token used for authentication", default=env("HELM_KUBETOKEN", ""))
    fs.string("kubeconfig", "path to the kubeconfig file")
    fs.string("namespace", "namespace scope for this request", default=env("HELM_NAMESPACE", ""), short="n")
    fs.float32("qps", "queries per second used when communicating with the Kubernetes API, not including "
               "bursting", default=_env_float("HELM_QPS"))
    fs.add("registry-config", PathValue(_helm_path("registry-config")), "path to the registry config file")
    fs.add("repository-cache", PathValue(_helm_path("repository-cache")),
           "path to the directory containing cached repository indexes")
    fs.add("repository-config", PathValue(_helm_path("repository-config")),
           "path to the file containing repository names and URLs")


# deploy-runner's own global flags: an EKS cluster reached with the environment's AWS
# credentials, no kubeconfig (docs/eks.md); their defaults are DEPLOY_RUNNER_EKS_* variables.
EKS_FLAGS = {
    "eks-cluster": ("DEPLOY_RUNNER_EKS_CLUSTER", "the EKS cluster to work on, reached with the environment's "
                    "AWS credentials instead of a kubeconfig (endpoint and CA from eks:DescribeCluster)"),
    "eks-region": ("DEPLOY_RUNNER_EKS_REGION", "the EKS cluster's AWS region (default: AWS_REGION, "
                   "AWS_DEFAULT_REGION, the profile's)"),
    "eks-role-arn": ("DEPLOY_RUNNER_EKS_ROLE_ARN", "an IAM role to assume for the EKS cluster (DescribeCluster "
                     "and the token)"),
}


def eks_flags(fs: FlagSet) -> None:
    for name, (variable, text) in EKS_FLAGS.items():
        fs.string(name, text, default=os.environ.get(variable, ""))


def _env_float(name: str) -> float:
    try:
        return float(os.environ.get(name, "") or 0)
    except ValueError:
        return 0.0


def apply_global_flags(args: Namespace) -> None:
    """The path flags given on the command line, for the code that reads HELM_* (and for
    plugins, which Helm hands its settings as these variables)."""
    for flag, variable in PATH_FLAGS.items():
        value = getattr(args, flag.replace("-", "_"))
        if value:
            os.environ[variable] = value


# ------------------------------------------------------------- shared groups


def values_flags(fs: FlagSet) -> None:
    """addValueOptionsFlags: -f/--values and the --set family."""
    fs.string_slice("values", "specify values in a YAML file or a URL (can specify multiple)",
                    short="f", dest="values_files")
    fs.string_array("set", "set values on the command line (can specify multiple or separate values with "
                    "commas: key1=val1,key2=val2)")
    fs.string_array("set-string", "set STRING values on the command line (can specify multiple or separate "
                    "values with commas: key1=val1,key2=val2)")
    fs.string_array("set-file", "set values from respective files specified via the command line (can "
                    "specify multiple or separate values with commas: key1=path1,key2=path2)")
    fs.string_array("set-json", "set JSON values on the command line (can specify multiple or separate values "
                    'with commas: key1=jsonval1,key2=jsonval2 or using json format: {"key1": jsonval1, '
                    '"key2": "jsonval2"})')
    fs.string_array("set-literal", "set a literal STRING value on the command line")
    fs.string_slice("secret-values", "specify values in a YAML file whose every value is secret: merged after "
                    "the --values files, and hidden (with their base64 forms) in hook logs and failure evidence, "
                    "as --set-file values are (can specify multiple)")


def set_values(args: Namespace) -> dict[str, list[str]]:
    """The --set family and --secret-values as runner.chart.uservalues.merge_user_values takes them."""
    return {flag: getattr(args, flag.replace("-", "_")) for flag in (*SET_FLAGS, "secret-values")}


def value_options(args: Namespace) -> ValueOptions:
    """The values flags (values_flags) as runner.chart.uservalues merges them: -f files,
    --secret-values files after them, then the --set family."""
    from runner.chart.uservalues import ValueOptions

    return ValueOptions(value_files=args.values_files, set_json=args.set_json, set=args.set,
                        set_string=args.set_string, set_file=args.set_file,
                        set_literal=args.set_literal, secret_files=args.secret_values)


def render_options(args: Namespace) -> RenderOptions:
    """The render flags of install, upgrade, diff and template (runner.actions.template.RenderOptions)."""
    from runner.actions.template import RenderOptions

    return RenderOptions(skip_schema_validation=args.skip_schema_validation,
                         render_subchart_notes=args.render_subchart_notes, post_renderer=post_renderer(args),
                         release_history_max=args.release_history_max,
                         include_history_values=args.include_history_values)


def tls_flags(fs: FlagSet, *, what: str = "chart download", client: str = "HTTPS client") -> None:
    """--ca-file, --cert-file, --key-file, --insecure-skip-tls-verify."""
    fs.string("ca-file", "verify certificates of HTTPS-enabled servers using this CA bundle")
    fs.string("cert-file", f"identify {client} using this SSL certificate file")
    fs.string("key-file", f"identify {client} using this SSL key file")
    fs.bool("insecure-skip-tls-verify", f"skip tls certificate checks for the {what}")


def credential_flags(fs: FlagSet) -> None:
    fs.string("username", "chart repository username where to locate the requested chart")
    fs.string("password", "chart repository password where to locate the requested chart")


def chart_path_flags(fs: FlagSet, *, devel_note: str = "") -> None:
    """addChartPathOptionsFlags (and --devel): where and which chart version to fetch."""
    fs.string("version", "specify a version constraint for the chart version to use. This constraint can be "
              "a specific tag (e.g. 1.1.1) or it may reference a valid range (e.g. ^2.0.0). If this is not "
              "specified, the latest version is used", dest="chart_version")
    fs.bool("verify", "verify the package before using it")
    fs.string("keyring", "location of public keys used for verification", default=default_keyring())
    fs.string("repo", "chart repository url where to locate the requested chart", dest="repo_url")
    credential_flags(fs)
    tls_flags(fs)
    fs.bool("plain-http", "use insecure HTTP connections for the chart download")
    fs.bool("pass-credentials", "pass credentials to all domains")
    fs.bool("devel", "use development versions, too. Equivalent to version '>0.0.0-0'. If --version is set, "
            f"this is ignored{devel_note}")


def source_options(args: Namespace) -> SourceOptions:
    """The chart-source settings of the chart-location flags (chart_path_flags; a command
    that has only some of them, as `dependency`, gets Helm's defaults for the others)."""
    from runner.chart.sources.downloader import SourceOptions

    version = getattr(args, "chart_version", "") or ""
    if not version and getattr(args, "devel", False):
        version = ">0.0.0-0"  # Helm: --devel admits pre-releases unless --version is given
    return SourceOptions(
        version=version, repo_url=getattr(args, "repo_url", ""),
        username=args.username, password=args.password, ca_file=args.ca_file,
        cert_file=args.cert_file, key_file=args.key_file,
        insecure_skip_tls_verify=args.insecure_skip_tls_verify,
        pass_credentials_all=getattr(args, "pass_credentials", False), plain_http=args.plain_http,
        verify=getattr(args, "verify", False), keyring=getattr(args, "keyring", ""),
    )


def chart_source(args: Namespace, chart: str) -> SourceOptions | None:
    """The chart-source settings for `chart`, or None where they play no part: a local
    chart, neither downloaded, verified nor given its dependencies (a `template` run of
    one loads no chart-source code)."""
    local = os.path.exists(chart) or os.path.isabs(chart) or chart.startswith(".")
    if local and not (args.repo_url or args.verify or args.dependency_update):
        return None
    return source_options(args)


def output_flag(fs: FlagSet) -> None:
    """bindOutputFlag: -o/--output table|json|yaml."""
    def parse(text: str, _current: Any) -> str:
        if text not in ("table", "json", "yaml"):
            raise ValueError("invalid format type")
        return text

    fs.add("output", FuncValue("format", "table", parse, "table"),
           "prints the output in the specified format. Allowed values: table, json, yaml", short="o")


def timeout_flag(fs: FlagSet, text: str = "time to wait for any individual Kubernetes operation (like Jobs "
                 "for hooks)", default: str = "5m0s") -> None:
    fs.duration("timeout", text, default=default)


def wait_flag(fs: FlagSet) -> None:
    """--wait[=watcher|hookOnly|legacy] (Helm's waitValue; true/false as the deprecated bools)."""
    def parse(text: str, _current: Any) -> str:
        if text in ("watcher", "hookOnly", "legacy"):
            return text
        if text in ("true", "false"):
            replacement = ("can be replaced with --wait=watcher" if text == "true"
                           else "can be replaced by omitting the --wait flag")
            warn(f"--wait={text} is deprecated (boolean value) and {replacement}")
            return "watcher" if text == "true" else "hookOnly"
        raise ValueError(f'invalid wait input "{text}". Valid inputs are watcher, hookOnly, and legacy')

    fs.add("wait", FuncValue("WaitStrategy", "hookOnly", parse, "hookOnly"),
           "if specified, wait until resources are ready (up to --timeout). Values: 'watcher', "
           "'hookOnly', and 'legacy'.", no_opt="watcher")


def history_flags(fs: FlagSet) -> None:
    """deploy-runner's own (HIP-0029 release history at render time; HIP-0027's name as an
    alias): install, upgrade, rollback, and template (which renders an empty history)."""
    def depth(text: str, _old: int) -> int:
        from runner.golang import strconv as gocast

        try:
            value = gocast.parse_int(text, 0, 64)
        except gocast.NumError as err:
            raise ValueError(str(err)) from None
        if value < 0:
            raise ValueError("must be 0 (no history) or more")
        return value

    usage = "how many previous releases the templates see as .Release.History (newest first; 0: none)"
    fs.add("release-history-max", FuncValue("int", 0, depth, "0"), usage)
    fs.add("deployed-depth", FuncValue("int", 0, depth, "0"), "alias of --release-history-max (HIP-0027)",
           dest="release_history_max", hidden=True)
    fs.bool("include-history-values", "include each previous release's values in .Release.History")


def dry_run_flag(fs: FlagSet, usage: str, default: str = "none") -> None:
    fs.string("dry-run", usage, default=default, no_opt="unset")


DRY_RUN_USAGE = ('simulates the operation without persisting changes. Must be one of: "none" (default), '
                 '"client", or "server". \'--dry-run=none\' executes the operation normally and persists '
                 "changes (no simulation). '--dry-run=client' simulates the operation client-side only and "
                 "avoids cluster connections. '--dry-run=server' simulates the operation on the server, "
                 "requiring cluster connectivity.")


def dry_run_strategy(value: str, *, template: bool = False) -> str:
    """cmdGetDryRunFlagStrategy: "none", "client" or "server" (`--dry-run` alone is the
    deprecated spelling of client)."""
    from runner.cli.pflag import go_quote

    if value == "unset":
        warn("--dry-run is deprecated and should be replaced with '--dry-run=client'")
        return "client"
    if value not in ("none", "client", "server"):
        raise RunnerError(f'invalid dry-run value ({go_quote(value)}). Must be "none", "server", or "client"')
    if template and value == "none":
        raise RunnerError(f'invalid dry-run value ({go_quote(value)}). Must be "server" or "client"')
    return value


def warn(message: str) -> None:
    """A Helm slog warning line on stderr (`level=WARN msg="..."`)."""
    from runner.cli.pflag import go_quote

    print_warning(f"level=WARN msg={go_quote(message)}")


def print_warning(line: str) -> None:
    """A warning line an action or a lookup tells, on stderr as it comes."""
    print(line, file=sys.stderr)


def print_said(kind: str, text: str) -> None:
    """What chart-source work says (runner.chart.sources.messages), where Helm prints it:
    notices on stdout, warnings on stderr."""
    from runner.chart.sources.messages import NOTICE

    print(text, file=sys.stdout if kind == NOTICE else sys.stderr)


# ----------------------------------------------------------------- post-render


def post_renderer_flags(fs: FlagSet) -> None:
    """bindPostRenderFlag: --post-renderer NAME (a plugin, looked up as the flag is set; empty
    is ignored, a second one refused) and --post-renderer-args (looked up again once a
    plugin is named)."""
    def set_plugin(name: str, current: Any) -> Any:
        if name == "":
            return current
        if current is not None:
            raise ValueError("cannot specify --post-renderer flag more than once")
        from runner.postrender import find_post_renderer

        return find_post_renderer(name, print_warning)

    plugin = fs.add("post-renderer", FuncValue("postRendererString", None, set_plugin),
                    "the name of a postrenderer type plugin to be used for post rendering. If it exists, "
                    "the plugin will be used")

    def add_arg(arg: str, current: list[str]) -> list[str]:
        if plugin.value.value is not None:
            from runner.postrender import find_post_renderer

            find_post_renderer(plugin.value.value.name, print_warning)
        return [*current, arg]

    fs.add("post-renderer-args", FuncValue("postRendererArgsSlice", [], add_arg, "[]"),
           "an argument to the post-renderer (can specify multiple)")


def post_renderer(args: Namespace) -> PostRenderer | None:
    """The post-renderer the flags chose, with every --post-renderer-args in order."""
    if args.post_renderer is None:
        return None
    from runner.postrender import PostRenderer

    return PostRenderer(args.post_renderer, tuple(args.post_renderer_args))
