#!/usr/bin/env bash
# Regenerates k8s/go.mod for a Kubernetes release, e.g. `./update-k8s.sh 1.35.4`.
# k8s.io/kubernetes requires its staging modules (k8s.io/api, ...) at v0.0.0 and
# replaces them with ./staging paths, which Go ignores in a dependency. So we pin
# every module its own go.mod replaces to the published v0.<minor>.<patch>.
set -euo pipefail
version="${1:?usage: $0 <kubernetes version, e.g. 1.35.4>}"
staging="0.${version#1.}"
cd "$(dirname "$0")/k8s"
modfile="$(go mod download -json "k8s.io/kubernetes@v${version}" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')"
{
  echo "// Builds kube-apiserver, kube-controller-manager and kube-scheduler at a pinned"
  echo "// Kubernetes version. The replace list is generated from kubernetes' own go.mod"
  echo "// by ../update-k8s.sh: each staging module is pinned to its matching v0.x release."
  echo "module deploy-testbed/k8s"
  echo
  echo "go $(sed -n 's/^go //p' "$modfile")"
  echo
  echo "require k8s.io/kubernetes v${version}"
  echo
  echo "replace ("
  sed -n '/^replace (/,/^)/p' "$modfile" | awk -v v="v${staging}" '/=> \.\/staging/ {print "\t" $1 " => " $1 " " v}'
  echo ")"
} > go.mod
go mod tidy
