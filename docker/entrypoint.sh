#!/bin/sh
# The GitHub Action's entry point. GitHub starts a Docker action as root (its
# Dockerfile-support docs: with a USER instruction the step loses GITHUB_WORKSPACE), so
# the image has no USER line; the deploy itself never runs as root: it runs as the owner
# of the workspace (the runner's user, uid 1001 on GitHub-hosted runners), who owns the
# GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files too, or as the image's unprivileged
# deploy-runner user when the workspace belongs to root.
set -eu
if [ "$(id -u)" = 0 ]; then
    owner=$(stat -c %u:%g "${GITHUB_WORKSPACE:-.}")
    case "$owner" in 0:*) owner=10001:10001 ;; esac
    exec setpriv --reuid="${owner%:*}" --regid="${owner#*:}" --clear-groups \
        deploy-runner "$@"
fi
exec deploy-runner "$@"
