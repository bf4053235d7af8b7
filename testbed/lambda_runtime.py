"""A Lambda function run as Lambda runs it, for the tests: the built zip, unpacked into a
task directory, under the AWS Lambda Runtime Interface Emulator (aws-lambda-rie, built
from its Go module, testbed/go/lambda-rie/go.mod, and cached like the other testbed
programs) with awslambdaric (pinned in pyproject.toml's test extra) in a virtual
environment of a clean Python of the runtime's version.

As on Lambda, only /tmp is writable: the emulator runs in a mount namespace of its own
(`unshare -m`) where a fresh tmpfs is /tmp and every other mount is read-only, so a write
anywhere else fails as it would there. Where a mount namespace cannot be had, the function
runs without it (`isolated` says which) and HOME and the XDG directories point into a
private directory.

    python = runtime_python()                      # 3.12 if the machine has one
    with LambdaFunction.start(task_dir, python, env={...}, timeout=60) as function:
        answer = function.invoke({"spec": {...}})  # POSTed to the invoke endpoint
"""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from testbed.build import cache_root, go_tool
from testbed.errors import TestbedError
from testbed.registry import free_port

RIE_MODULE = "github.com/aws/aws-lambda-runtime-interface-emulator"
RIE_PACKAGE = f"{RIE_MODULE}/cmd/aws-lambda-rie"
RUNTIME_VERSION = "3.12"  # Lambda's python3.12 runtime
INVOKE_PATH = "/2015-03-31/functions/function/invocations"
START_SECONDS = 30.0


def rie_binary() -> Path:
    return go_tool("lambda-rie", RIE_MODULE, RIE_PACKAGE, "aws-lambda-rie")


def runtime_python() -> tuple[str, str]:
    """(a Python executable, its version): Python 3.12 when the machine has one (on PATH,
    or a pyenv version), else the machine's python3."""
    candidates = [shutil.which(f"python{RUNTIME_VERSION}")]
    pyenv = shutil.which("pyenv")
    if pyenv:
        root = subprocess.run([pyenv, "root"], capture_output=True, text=True, check=False).stdout.strip()
        candidates += sorted(glob.glob(os.path.join(root, "versions", f"{RUNTIME_VERSION}.*", "bin",
                                                    f"python{RUNTIME_VERSION}")), reverse=True)
    candidates.append(shutil.which("python3"))
    for candidate in filter(None, candidates):
        found = subprocess.run([candidate, "-c", "import sys, venv; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True, check=False)
        if found.returncode == 0:
            return candidate, found.stdout.strip()
    raise TestbedError("no Python found to run the Lambda function with")


def awslambdaric_version() -> str:
    from importlib.metadata import version

    return version("awslambdaric")


def runtime_environment(python: str, python_version: str) -> Path:
    """A virtual environment of `python` holding awslambdaric only (built once, cached);
    its python executable."""
    ric = awslambdaric_version()
    target = cache_root() / f"lambda-python{python_version}-awslambdaric{ric}"
    executable, complete = target / "bin" / "python", target / ".complete"
    if complete.is_file():
        return executable
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lambda-runtime.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be building it
        if not complete.is_file():
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run([python, "-m", "venv", str(target)], check=True)
            subprocess.run([str(executable), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--only-binary=:all:", f"awslambdaric=={ric}"], check=True)
            complete.touch()
    return executable


def can_isolate() -> bool:
    """Whether a mount namespace with a read-only root can be made here."""
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                            "mount -t tmpfs none /tmp && mount -o remount,bind,ro / && true"],
                           capture_output=True, check=False)
    return probe.returncode == 0


_ISOLATE = """set -e
mount -t tmpfs -o size=512m,mode=1777 lambda-tmp /tmp
for target in $(awk '{print $2}' /proc/self/mounts | sort -u); do
  case "$target" in /tmp|/tmp/*|/proc|/proc/*|/sys|/sys/*|/dev|/dev/*) continue ;; esac
  mount -o remount,bind,ro "$target" 2>/dev/null || true
done
exec "$@"
"""


@dataclass
class LambdaFunction:
    """A running emulator with the function; `invoke(event)` POSTs an event to it."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    isolated: bool
    invocations: list[dict[str, Any]] = field(default_factory=list)  # each: seconds, answer

    @classmethod
    def start(cls, task_dir: Path, python: str, *, env: dict[str, str], timeout: int = 60,
              memory: int = 512, log_path: Path, name: str = "deploy-runner") -> LambdaFunction:
        """The function of `task_dir` (an unpacked zip) on `python` (runtime_environment's),
        Lambda's variables set, `env` added (AWS_*, DEPLOY_RUNNER_*, ...)."""
        port = free_port()
        isolated = can_isolate()
        command = [str(rie_binary()), "--log-level", "error",
                   "--runtime-interface-emulator-address", f"127.0.0.1:{port}",
                   "--runtime-api-address", f"127.0.0.1:{free_port()}",
                   python, "-m", "awslambdaric", "handler.handler"]
        if isolated:
            command = ["unshare", "-m", "--propagation", "private", "sh", "-c", _ISOLATE, "lambda", *command]
        environment = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "TZ": ":UTC",
                       "PYTHONPATH": str(task_dir), "LAMBDA_TASK_ROOT": str(task_dir),
                       "AWS_LAMBDA_FUNCTION_NAME": name, "AWS_LAMBDA_FUNCTION_TIMEOUT": str(timeout),
                       "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(memory), "AWS_LAMBDA_FUNCTION_VERSION": "$LATEST",
                       "AWS_EXECUTION_ENV": "AWS_Lambda_python3.12", "PYTHONDONTWRITEBYTECODE": "1"}
        if not isolated:
            private = log_path.parent / "lambda-home"
            environment.update(HOME=str(private), TMPDIR=str(private / "tmp"))
            (private / "tmp").mkdir(parents=True, exist_ok=True)
        environment.update(env)
        log = open(log_path, "wb")  # noqa: SIM115 - the emulator writes to it until stopped
        process = subprocess.Popen(command, cwd=task_dir, env=environment, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        log.close()
        function = cls(process, port, log_path, isolated)
        function._wait_ready()
        return function

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise TestbedError(f"the Lambda emulator exited: {self.log()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise TestbedError(f"the Lambda emulator did not listen in {START_SECONDS:.0f}s: {self.log()[-2000:]}")

    def invoke(self, event: Any, *, timeout: float = 900.0) -> Any:
        """The function's answer to `event` (JSON), as Lambda's Invoke returns it; the time
        from the request to the answer is kept in `invocations`."""
        body = event if isinstance(event, bytes) else json.dumps(event).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{INVOKE_PATH}", data=body,
                                         headers={"Content-Type": "application/json"}, method="POST")
        started = time.monotonic()
        with urllib.request.urlopen(request, timeout=timeout) as response:
            first = response.read(1)
            seconds = time.monotonic() - started
            raw = first + response.read()
        answer = json.loads(raw) if raw else None
        self.invocations.append({"seconds": seconds, "answer": answer})
        return answer

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def reports(self) -> list[str]:
        """The emulator's REPORT lines (Init Duration of a cold start, each Duration)."""
        return [line for line in self.log().splitlines() if line.startswith("REPORT")]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)

    def __enter__(self) -> LambdaFunction:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
