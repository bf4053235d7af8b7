"""`template`: Helm's `helm template` flags (install's, and its own) and printing."""

from __future__ import annotations

import sys

from runner.cli.cobra import Command, minimum_args
from runner.cli.flags import (
    chart_path_flags,
    chart_source,
    dry_run_strategy,
    history_flags,
    post_renderer_flags,
    render_options,
    timeout_flag,
    value_options,
    values_flags,
    wait_flag,
)
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
Render chart templates locally and display the output.

Any values that would normally be looked up or retrieved in-cluster will be
faked locally. Additionally, none of the server-side testing of chart validity
(e.g. whether an API is supported) is done. With --dry-run=server the cluster's
version and API versions are used for .Capabilities.

To specify the Kubernetes API versions used for Capabilities.APIVersions, use
the '--api-versions' flag. This flag can be specified multiple times or as a
comma-separated list.
"""


def build(_name: str) -> Command:
    return Command("template [NAME] [CHART]", "locally render templates", long=LONG,
                   args=minimum_args(1), run=handle, flags=_flags)


def install_flags(fs: FlagSet, *, server_side: bool = True) -> None:
    """addInstallFlags: what install and template share (for template most only parse,
    as in Helm's client-only install)."""
    fs.bool("create-namespace", "create the release namespace if not present")
    fs.bool("force-conflicts", "if set server-side apply will force changes against conflicts")
    fs.bool("no-hooks", "prevent hooks from running during install")
    fs.bool("replace", "reuse the given name, only if that name is a deleted release which remains in the "
            "history. This is unsafe in production")
    timeout_flag(fs)
    wait_flag(fs)
    fs.bool("wait-for-jobs", "if set and --wait enabled, will wait until all Jobs have been completed before "
            "marking the release as successful. It will wait for as long as --timeout")
    fs.bool("generate-name", "generate the name (and omit the NAME parameter)", short="g")
    fs.string("description", "add a custom description")
    fs.bool("dependency-update", "update dependencies if they are missing before installing the chart")
    fs.bool("disable-openapi-validation", "if set, the installation process will not validate rendered "
            "templates against the Kubernetes OpenAPI Schema")
    fs.bool("rollback-on-failure", "if set, Helm will rollback (uninstall) the installation upon failure. The "
            '--wait flag will be default to "watcher" if --rollback-on-failure is set')
    fs.bool("atomic", "deprecated", dest="rollback_on_failure", hidden=True,
            deprecated="use --rollback-on-failure instead")
    fs.bool("skip-crds", "if set, no CRDs will be installed. By default, CRDs are installed if not already "
            "present")
    fs.bool("render-subchart-notes", "if set, render subchart notes along with the parent")
    fs.bool("skip-schema-validation", "if set, disables JSON schema validation")
    fs.string_to_string("labels", "Labels that would be added to release metadata. Should be divided by comma.",
                        short="l")
    fs.bool("hide-notes", "if set, do not show notes in install output. Does not affect presence in chart "
            "metadata")
    fs.bool("take-ownership", "if set, install will ignore the check for helm annotations and take ownership "
            "of the existing resources")
    if server_side:
        fs.bool("server-side", "object updates run in the server instead of the client", default=True)
    values_flags(fs)
    chart_path_flags(fs)
    post_renderer_flags(fs)
    history_flags(fs)


def _flags(fs: FlagSet) -> None:
    install_flags(fs)
    fs.string_array("show-only", "only show manifests rendered from the given templates", short="s")
    fs.string("output-dir", "writes the executed templates to files in output-dir instead of stdout")
    fs.bool("validate", "deprecated", hidden=True, deprecated="use '--dry-run=server' instead")
    fs.bool("include-crds", "include CRDs in the templated output")
    fs.bool("skip-tests", "skip tests from templated output")
    fs.bool("is-upgrade", "set .Release.IsUpgrade instead of .Release.IsInstall")
    fs.string("kube-version", "Kubernetes version used for Capabilities.KubeVersion")
    fs.string_slice("api-versions", "Kubernetes api versions used for Capabilities.APIVersions (multiple can "
                    "be specified)", short="a")
    fs.bool("release-name", "use release name in the output-dir path.", dest="use_release_name")
    fs.string("dry-run", "simulates the operation either client-side or server-side. Must be either: "
              "\"client\", or \"server\". '--dry-run=client simulates the operation client-side only and "
              "avoids cluster connections. '--dry-run=server' simulates/validates the operation on the "
              "server, requiring cluster connectivity.", default="client", no_opt="unset")


def handle(args: Namespace) -> int:
    from runner.actions.template import TemplateOptions, render_template

    name, chart = name_and_chart(args.args, args.generate_name, "release-name")
    strategy = "server" if args.validate else dry_run_strategy(args.dry_run, template=True)
    namespace = args.namespace or _context_namespace(args)
    cluster = None
    if strategy == "server":
        from runner.cli.cluster import action_config, command_journal

        cluster = action_config(args, command_journal(args))
    opts = TemplateOptions(
        release_name=name, chart=chart, namespace=namespace,
        values=value_options(args), render=render_options(args),
        show_only=args.show_only, output_dir=args.output_dir,
        use_release_name=args.use_release_name, include_crds=args.include_crds,
        skip_crds=args.skip_crds, skip_tests=args.skip_tests, is_upgrade=args.is_upgrade,
        no_hooks=args.no_hooks, kube_version=args.kube_version or None, api_versions=args.api_versions,
        source=chart_source(args, chart), dependency_update=args.dependency_update, cluster=cluster,
        take_ownership=args.take_ownership, disable_openapi_validation=args.disable_openapi_validation,
    )
    if args.debug:
        from runner.golang.slog import text_line

        print(text_line("DEBUG", "Original chart version", {"version": args.chart_version}), file=sys.stderr)
    print_line = lambda text: print(text, file=sys.stderr)  # noqa: E731 - one printer for both
    result = render_template(opts, on_warning=print_line, out=sys.stdout,
                             on_debug=print_line if args.debug else None)
    sys.stdout.write("".join(f"wrote {path}\n" for path in result.written))
    sys.stdout.write(result.text)
    return 0


def _context_namespace(args: Namespace) -> str:
    """Without -n, Helm renders for the kubeconfig context's namespace (EnvSettings.Namespace);
    the kubeconfig is read as runner.kube.kubeconfig_files reads it, at little cost."""
    import os

    from runner.kube.kubeconfig_files import context_namespace

    found = context_namespace(args.kubeconfig, args.kube_context, os.environ)
    if found is not None:
        return found
    from runner.cli.cluster import cluster_access
    from runner.kube.kubeconfig import ClusterAccess, default_namespace

    return default_namespace(ClusterAccess(**cluster_access(args)))  # in a pod: the service account's


def name_and_chart(args: list[str], generate_name: bool, preset_name: str = "") -> tuple[str, str]:
    """Install.NameAndChart: NAME CHART, or CHART alone with a preset name (template's
    "release-name") or --generate-name."""
    if len(args) > 2:
        raise RunnerError(f"expected at most two arguments, unexpected arguments: {', '.join(args[2:])}")
    if len(args) == 2:
        if generate_name:
            raise RunnerError("cannot set --generate-name and also specify a name")
        return args[0], args[1]
    if preset_name:
        return preset_name, args[0]
    if not generate_name:
        raise RunnerError("must either provide a name or specify --generate-name")
    return "", args[0]
