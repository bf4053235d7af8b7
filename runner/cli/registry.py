"""`registry login/logout HOST` (Helm's action.RegistryLogin/Logout)."""

from __future__ import annotations

import argparse
import sys

from runner.cli.errors import user_errors
from runner.cli.flags import add_flag, group_help, helm_flags
from runner.errors import RunnerError

TYPE_CHECKING = False  # `typing` costs ~2 ms at every start: see docs/speed.md
if TYPE_CHECKING:
    from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("registry", help="login to or logout from a registry")
    parser.set_defaults(handler=group_help(parser))
    commands = parser.add_subparsers(dest="registry_command", metavar="COMMAND")
    login = commands.add_parser("login", help="login to a registry", allow_abbrev=False)
    login.add_argument("hosts", nargs="*", metavar="HOST")
    add_flag(login, "-u", "--username", default="")
    add_flag(login, "-p", "--password", default="")
    login.add_argument("--password-stdin", action="store_true")
    login.add_argument("--insecure", action="store_true")
    login.add_argument("--plain-http", action="store_true")
    for flag in ("--cert-file", "--key-file", "--ca-file"):
        login.add_argument(flag, default="")
    login.set_defaults(handler=handle_login)
    helm_flags(login)
    logout = commands.add_parser("logout", help="logout from a registry", allow_abbrev=False)
    logout.add_argument("hosts", nargs="*", metavar="HOST")
    logout.set_defaults(handler=handle_logout)
    helm_flags(logout)



def _one_host(args: argparse.Namespace, command: str) -> str:
    if not args.hosts:
        raise RunnerError(f'"helm registry {command}" requires at least 1 argument\n\n'
                          f"Usage:  helm registry {command} [host] [flags]")
    return str(args.hosts[0])


@user_errors
def handle_login(args: argparse.Namespace) -> int:
    from runner.chart.sources import oci
    from runner.chart.sources.errors import SourceError
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.registry_config import store_credentials

    host = _one_host(args, "login")
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


def credentials(args: argparse.Namespace) -> tuple[str, str]:
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
def handle_logout(args: argparse.Namespace) -> int:
    from runner.chart.sources.paths import HelmPaths
    from runner.chart.sources.registry_config import remove_credentials

    host = _one_host(args, "logout")
    remove_credentials(host, HelmPaths.from_env().registry_config)
    print(f"Removing login credentials for {host}", file=sys.stderr)
    return 0
