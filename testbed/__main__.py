"""`python -m testbed up|demo|build`: run or build the local testbed.

up     builds the binaries if needed, starts the control plane and keeps it up
       until SIGTERM, SIGINT (Ctrl-C) or SIGHUP, whatever stdin is. Standard
       output gets one line, `export KUBECONFIG=<path>`, once the cluster is
       ready (for `eval`, or a script that waits for it); what runs and how to
       use it goes to standard error.
demo   the same on a terminal, all on standard output; with --once (the default
       when stdin is not a terminal) it exits after printing.
build  only builds (or finds cached) binaries and prints where they are.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

from runner.errors import RunnerError
from testbed.build import PROVISIONER, PROVISIONER_MODULE, ensure_binaries
from testbed.cluster import NODE_NAMES, Testbed
from testbed.kwok_config import NODE_ALLOCATABLE, NODE_CAPACITY
from testbed.storage import PROVISIONER_NAME, STORAGE_CLASS


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "build":
            binaries = ensure_binaries(_say)
            _say(f"testbed binaries: {binaries.directory}")
            return 0
        if args.command == "up":
            return _up()
        if args.once:
            return _demo("--once: stopping the testbed again.")
        if not sys.stdin.isatty():
            return _demo("stdin is not a terminal, so stopping again (run it in a terminal to keep it up).")
        return _demo(None)
    except RunnerError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        return 130


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m testbed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("up", help="start the testbed, print `export KUBECONFIG=...` and stay up "
                                   "until SIGTERM or Ctrl-C")
    demo = commands.add_parser("demo", help="start the testbed and show how to use it")
    demo.add_argument("--once", action="store_true",
                      help="exit after printing (default when stdin is not a terminal)")
    commands.add_parser("build", help="build or locate the cached testbed binaries")
    return parser


def _say(message: str) -> None:
    print(message, flush=True)


def _up() -> int:
    """Start, print the export line on stdout, and stay up until a terminating signal."""
    for signum in (signal.SIGTERM, signal.SIGHUP):
        # Stopping by signal is how `up` is meant to end: as Ctrl-C does, it leaves the
        # wait below (after the clean-up registry has stopped the testbed) and exits 0.
        signal.signal(signum, _interrupt)
    _note("starting the testbed (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, pod-logs, "
          "hostpath-provisioner, eks-webhook)...")
    try:
        with Testbed.start(log=_note, keep_workdir=False) as testbed:
            _note(describe(testbed))
            _note("Stop it with Ctrl-C or SIGTERM (kill <pid>); it removes its directory on stop.")
            print(f"export KUBECONFIG={testbed.kubeconfig}", flush=True)
            threading.Event().wait()
    except KeyboardInterrupt:
        _note("testbed stopped.")
    return 0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _note(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _demo(stop_reason: str | None) -> int:
    """Start, describe, then stop at once (stop_reason given) or on Ctrl-C."""
    _say("starting the testbed (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, pod-logs, "
         "hostpath-provisioner, eks-webhook)...")
    with Testbed.start(log=_say, keep_workdir=False) as testbed:
        _say(describe(testbed))
        if stop_reason:
            _say(stop_reason)
            return 0
        _say("Press Ctrl-C to stop it.")
        try:
            threading.Event().wait()  # until a signal arrives
        except KeyboardInterrupt:
            _say("\nstopping the testbed...")
    return 0


def describe(testbed: Testbed) -> str:
    """What is running, with versions, ports, memory, and how to use it."""
    versions = testbed.binaries.versions
    k8s, etcd, kwok = (versions[m] for m in ("k8s.io/kubernetes", "go.etcd.io/etcd/server/v3", "sigs.k8s.io/kwok"))
    component_versions = {"etcd": etcd, "kube-apiserver": k8s, "kube-controller-manager": k8s,
                          "kube-scheduler": k8s, "kwok": kwok, "pod-logs": "(python)", "eks-webhook": "(python)",
                          PROVISIONER: versions[PROVISIONER_MODULE]}
    rss = testbed.rss_bytes()
    lines = [f"testbed is up in {testbed.startup_seconds:.1f}s (built with {versions['go']}):", ""]
    lines.append(f"  {'component':<24} {'version':<9} {'port':>6}  {'pid':>7}  {'RSS':>8}")
    for component in testbed.components:
        mib = rss.get(component.name, 0) / 2**20
        lines.append(
            f"  {component.name:<24} {component_versions[component.name]:<9} "
            f"{testbed.ports.get(component.name, '-'):>6}  {component.process.pid:>7}  {mib:>6.0f}MiB"
        )
    lines += [
        f"  {'total':<24} {'':<9} {'':>6}  {'':>7}  {sum(rss.values()) / 2**20:>6.0f}MiB",
        "",
        f"  nodes (simulated by kwok): {', '.join(NODE_NAMES)}",
        f"    each: {_resources(NODE_CAPACITY)} (allocatable {_resources(NODE_ALLOCATABLE)})",
        f"  storage:     StorageClass {STORAGE_CLASS} (default), provisioner {PROVISIONER_NAME},"
        f" volumes in {testbed.workdir}/volumes",
        f"  API server:  {testbed.server}",
        f"  logs:        {testbed.workdir}/<component>.log",
        f"  binaries:    {testbed.binaries.directory}",
        "",
        "Point kubectl (or helm) at it:",
        f"  export KUBECONFIG={testbed.kubeconfig}",
        "  kubectl get nodes",
    ]
    return "\n".join(lines)


def _resources(resources: dict[str, str]) -> str:
    return ", ".join(f"{name} {quantity}" for name, quantity in resources.items())


if __name__ == "__main__":
    sys.exit(main())
