#!/usr/bin/env bash
# The action's first step: a Python >= 3.11 already on the runner (hosted runners have one;
# a self-hosted runner may) that can make a virtual environment with pip (Debian and
# Ubuntu ship ensurepip apart, in python3.X-venv), written to the step's outputs as
# `python`; nothing when there is none, and the next step installs one (actions/setup-python).
set -u
for candidate in python3.13 python3.12 python3.11 python3 python; do
    command -v "$candidate" >/dev/null 2>&1 || continue
    # Windows' `python3` may be the Store's stand-in, which runs nothing: asked, not assumed
    found=$("$candidate" -c 'import ensurepip, sys, venv; print(sys.executable if sys.version_info >= (3, 11) else "")' \
        2>/dev/null | tr -d '\r') || continue
    if [ -n "$found" ]; then
        echo "python=${found//\\//}" >> "$GITHUB_OUTPUT"
        exit 0
    fi
done
echo "python=" >> "$GITHUB_OUTPUT"
