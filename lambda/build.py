"""Build the Lambda function's zip (`make lambda-zip`; docs/lambda.md, "Deploying").

    python lambda/build.py [--arch x86_64] [--arch arm64] [--python-version 3.12]
                           [--compile-with PYTHON] [--out dist/lambda]

For each architecture: the locked dependencies with the `aws` extra (requirements/aws.txt,
hashes checked) as wheels for the Lambda runtime's platform (manylinux up to glibc
2.34, Amazon Linux 2023's; CPython of --python-version; binary wheels only), then deploy-runner's `runner` package and
handler.py at the top, in dist/lambda/deploy-runner-lambda-
<python>-<arch>.zip. The files are stored in a fixed order with a fixed time, so the same
inputs give the same zip.

Lambda's package is read-only, so Python cannot write the bytecode it compiles at each
cold start: with --compile-with naming a Python of the runtime's version, the zip carries
it, compiled with unchecked hashes (the file times a zip keeps do not matter then).

Lambda refuses a function whose package is larger than 250 MB unzipped: the build
reports both sizes of each zip and fails above that.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[1]
LOCK = REPOSITORY / "requirements" / "aws.txt"
UNZIPPED_LIMIT = 250 * 1000 * 1000  # Lambda's quota: 250 MB, decimal
# Lambda's python3.12 runtime is Amazon Linux 2023 (glibc 2.34): manylinux wheels up to
# 2_34 run there (google-re2's need 2_28); pip takes the tags it is given, no older ones.
GLIBC_TAGS = ("manylinux2014", "manylinux_2_28", "manylinux_2_34")
PLATFORMS = {"x86_64": "x86_64", "arm64": "aarch64"}
LEFT_OUT = ("__pycache__",)  # compiled afresh (--compile-with) or not at all
ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", action="append", choices=sorted(PLATFORMS), default=None)
    parser.add_argument("--python-version", default="3.12")
    parser.add_argument("--compile-with", default="", help="a Python of --python-version to compile with")
    parser.add_argument("--out", default=str(REPOSITORY / "dist" / "lambda"))
    args = parser.parse_args(argv)
    if not LOCK.is_file():
        print(f"error: the lock {LOCK.relative_to(REPOSITORY)} is missing (make lock)", file=sys.stderr)
        return 1
    compiler = _compiler(args.compile_with, args.python_version)
    out = Path(args.out)
    for arch in args.arch or ["x86_64", "arm64"]:
        built = build(arch, args.python_version, out, compiler)
        zipped, unzipped = built.stat().st_size, unzipped_size(built)
        print(f"{built.relative_to(out.parent) if out.parent in built.parents else built}: "
              f"{zipped / 1e6:.1f} MB zipped, {unzipped / 1e6:.1f} MB unzipped "
              f"(Lambda's limit: {UNZIPPED_LIMIT / 1e6:.0f} MB)")
        if unzipped > UNZIPPED_LIMIT:
            print(f"error: {built.name} is larger than Lambda allows unzipped", file=sys.stderr)
            return 1
    return 0


def _compiler(python: str, version: str) -> str:
    if not python:
        print(f"note: no --compile-with: the zip carries no bytecode (Python {version} compiles "
              "the modules at every cold start)", file=sys.stderr)
        return ""
    try:
        probe = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                               capture_output=True, text=True)
    except OSError as error:
        raise SystemExit(f"error: --compile-with {python}: {error.strerror}") from None
    if probe.returncode != 0:
        reason = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[0]
        raise SystemExit(f"error: --compile-with {python} does not run: {reason}")
    found = probe.stdout.strip()
    if found != version:
        raise SystemExit(f"error: --compile-with {python} is Python {found}, not {version}")
    return python


def build(arch: str, python_version: str, out: Path, compiler: str = "") -> Path:
    """The zip of one architecture; its path."""
    staging = out / f"{python_version}-{arch}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    "--no-compile", "--no-deps", "--require-hashes", "--only-binary=:all:",
                    "--implementation", "cp", "--python-version", python_version,
                    *[f"--platform={tag}_{PLATFORMS[arch]}" for tag in GLIBC_TAGS],
                    "--target", str(staging), "-r", str(LOCK)],
                   check=True)
    shutil.copytree(REPOSITORY / "runner", staging / "runner", ignore=shutil.ignore_patterns(*LEFT_OUT))
    shutil.copy2(REPOSITORY / "lambda" / "handler.py", staging / "handler.py")
    for stray in staging.glob("bin"):  # console scripts of the dependencies: nothing runs them
        shutil.rmtree(stray)
    if compiler:
        subprocess.run([compiler, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode",
                        "unchecked-hash", str(staging)], check=True)
    target = out / f"deploy-runner-lambda-{python_version}-{arch}.zip"
    write_zip(staging, target)
    return target


def write_zip(directory: Path, target: Path) -> None:
    """Every file under `directory`, sorted, each with a fixed time and its mode kept."""
    partial = target.with_suffix(".zip.partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(path.relative_to(directory).as_posix(), ZIP_TIME)
            info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    partial.replace(target)


def unzipped_size(path: Path) -> int:
    with zipfile.ZipFile(path) as archive:
        return sum(info.file_size for info in archive.infolist())


if __name__ == "__main__":
    sys.exit(main())
