"""The local Kubernetes testbed used by the e2e tests and `make demo`.

build.py builds and caches the binaries, pki.py makes certificates,
kwok_config.py says how simulated nodes and pods behave, cluster.py starts and
stops the control plane, helm.py provides the Helm oracle binary, helmdiff.py and
helmfile.py build the helm-diff plugin and helmfile (tools that drive helm).
"""
