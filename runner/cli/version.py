"""`version`: Helm's output shapes (version.BuildInfo, --short, --template).

Named deploy-runner, the version is deploy-runner's own (v0.1.0). Invoked as `helm`
(a link or copy so named: runner.cli.program_name), it is the Helm version deploy-runner
stands in for, with build metadata naming deploy-runner, in the form Helm's own builds
give build metadata (`-X .../internal/version.metadata`): `v4.1.4+deploy-runner.0.1.0`.
Tools that drive the helm binary read the major version from it (helmfile runs
`helm version --short`, its chartify `helm version --template={{.Version}}+g{{.GitCommit}}`,
and refuses any major but 3 and 4); SemVer parsers read it as 4.1.4.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, no_args

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

HELM = "helm"  # the program name under which deploy-runner answers as Helm

LONG = """
Show the version for deploy-runner.

This will print a representation of the version, in the shape Helm prints its own:

version.BuildInfo{Version:"v0.1.0", GitCommit:"", GitTreeState:"", GoVersion:"python3.11.2", KubeClientVersion:"v1.35"}

- Version is the semantic version of deploy-runner. Invoked as `helm` (a link or a copy
  so named), it is the Helm version deploy-runner works alike, with deploy-runner's
  version as build metadata: v4.1.4+deploy-runner.0.1.0.
- GitCommit and GitTreeState are empty (not recorded at build).
- GoVersion names the Python interpreter running deploy-runner.
- KubeClientVersion is the Kubernetes version of the API it speaks (and of .Capabilities
  when rendering offline).

When using the --template flag the following properties are available to use in
the template: .Version, .GitCommit, .GitTreeState, .GoVersion, .KubeClientVersion.

For example, --template='Version: {{.Version}}' outputs 'Version: v0.1.0'.
"""


def build(_name: str) -> Command:
    return Command("version", "print the client version information", long=LONG, args=no_args,
                   run=handle, flags=_flags)


def _flags(fs: FlagSet) -> None:
    fs.bool("short", "print the version number")
    fs.string("template", "template for version string format")
    fs.bool("client", "display client version information", default=True, short="c", hidden=True)


def version_as(program: str) -> str:
    """The Version field: deploy-runner's, or (as `helm`) Helm's with our build metadata."""
    import re

    from runner import version

    __version__ = version()
    from runner.engine_objects import HelmVersion

    if program != HELM:
        return f"v{__version__}"
    # SemVer build metadata: dot-separated [0-9A-Za-z-] identifiers (a local `+` would break it)
    metadata = re.sub(r"[^0-9A-Za-z.-]", "-", f"deploy-runner.{__version__}")
    return f"{HelmVersion.Version}+{metadata}"


def build_info(program: str) -> dict[str, str]:
    """version.BuildInfo's fields, in Go's order."""
    import platform

    from runner.engine_objects import default_capabilities

    kube = default_capabilities().KubeVersion
    return {"Version": version_as(program), "GitCommit": "", "GitTreeState": "",
            "GoVersion": f"python{platform.python_version()}",
            "KubeClientVersion": f"v{kube.Major}.{kube.Minor}"}


def handle(args: Namespace) -> int:
    info = build_info(args.program)
    if args.template:
        from runner.errors import RunnerError
        from runner.template import Template

        try:
            sys.stdout.write(Template("_").parse("_", args.template).execute("_", info))
        except Exception as err:  # a template error is the user's, shown as Helm shows it
            raise RunnerError(str(err)) from err
        return 0
    if args.short:
        print(info["Version"])  # no commit recorded: Helm's GetVersion() alone
        return 0
    fields = ", ".join(f'{key}:"{value}"' for key, value in info.items())
    print(f"version.BuildInfo{{{fields}}}")
    return 0
