"""`registry login/logout HOST` (Helm's action.RegistryLogin/Logout)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from runner.cli.cobra import Command, minimum_args
from runner.cli.errors import user_errors
from runner.errors import RunnerError

if TYPE_CHECKING:
    from runner.cli.pflag import FlagSet, Namespace

LONG = """
This command consists of multiple subcommands to interact with registries.
"""


def build(_name: str) -> Command:
    return Command("registry", "login to or logout from a registry", long=LONG, children=[
        Command("login [host]", "login to a registry", long="\nAuthenticate to a remote registry.\n",
                args=minimum_args(1), run=handle_login, flags=_login_flags),
        Command("logout [host]", "logout from a registry", long="\nRemove credentials stored for a remote "
                "registry.\n", args=minimum_args(1), run=handle_logout),
    ])


def _login_flags(fs: FlagSet) -> None:
    fs.string("username", "registry username", short="u")
    fs.string("password", "registry password or identity token", short="p")
    fs.bool("password-stdin", "read password or identity token from stdin")
    fs.bool("insecure", "allow connections to TLS registry without certs")
    fs.string("cert-file", "identify registry client using this SSL certificate file")
    fs.string("key-file", "identify registry client using this SSL key file")
    fs.string("ca-file", "verify certificates of HTTPS-enabled servers using this CA bundle")
    fs.bool("plain-http", "use insecure HTTP connections for the chart upload")


@user_errors
def handle_login(args: Namespace) -> int:
    from runner.chart.sources import oci
    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.registry_config import store_credentials

    host = args.args[0]
    username, password = credentials(args)
    options = oci.OciOptions(plain_http=args.plain_http, insecure_skip_tls_verify=args.insecure,
                             ca_file=args.ca_file, cert_file=args.cert_file,
                             key_file=args.key_file, username=username, password=password)
    try:
        oci.login(host, options)
    except SourceError as err:
        raise RunnerError(str(err)) from err
    store_credentials(host, username, password, HelmPaths.from_env().registry_config)
    print("Login Succeeded", file=sys.stderr)
    return 0


def credentials(args: Namespace) -> tuple[str, str]:
    """getUsernamePassword: --password-stdin, the flags, else prompts (a blank user asks for a token)."""
    username, password = args.username, args.password
    if args.password_stdin:
        password = sys.stdin.read().removesuffix("\n").removesuffix("\r")
    elif not password:
        if not username:
            username = _read_line("Username: ", secret=False).strip()
        prompt, missing = ("Password: ", "password required") if username else ("Token: ", "token required")
        password = _read_line(prompt, secret=True)
        if not password:
            raise RunnerError(missing)
    else:
        print('level=WARN msg="using --password via the CLI is insecure. Use --password-stdin"',
              file=sys.stderr)
    return username, password


def _read_line(prompt: str, secret: bool) -> str:
    """The prompt on stdout, one line from stdin (not echoed on a terminal when secret)."""
    if secret and sys.stdin.isatty():
        import getpass

        return getpass.getpass(prompt)
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        raise RunnerError("EOF")
    return line.removesuffix("\n").removesuffix("\r")


@user_errors
def handle_logout(args: Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.registry_config import remove_credentials

    host = args.args[0]
    remove_credentials(host, HelmPaths.from_env().registry_config)
    print(f"Removing login credentials for {host}", file=sys.stderr)
    return 0
