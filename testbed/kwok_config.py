"""kwok's configuration: how simulated nodes and pods behave.

Standalone kwok has no built-in behaviour; everything comes from Stages
(kwok.x-k8s.io/v1alpha1). These are written for tests:

- a node becomes Ready at once, with the capacity of a typical cloud worker node
  (``NODE_CAPACITY``, ``NODE_ALLOCATABLE``), and keeps sending heartbeats;
- a scheduled pod starts: its init containers run in order, then its containers
  run and the pod is Ready;
- a pod that runs to completion then finishes: a Job's, a Helm hook's (``helm
  test`` Pods included), one labelled ``testbed.deploy-runner/fail: "true"``
  (its containers exit 1), and one with restartPolicy Never/OnFailure whose
  containers set an exit code. It Succeeds when every container exits 0, else
  Fails; annotation ``testbed.deploy-runner/runtime: 3s`` makes it run that long;
- a pod being deleted is removed.

Tests choose what each container does through its environment:

- ``TESTBED_EXIT_CODE``: the exit code (default 0). A failing init container
  fails the pod at once (the later init containers and the containers never
  start: waiting, PodInitializing), so a Job makes its next pod per
  backoffLimit; a failing container of a pod that restarts (Always) is in
  CrashLoopBackOff;
- ``TESTBED_LOG``: the lines of its log (one per line; default ``POD_LOG_LINES``),
  served by testbed.pod_logs, which stands in for the kubelet's log API.
"""

from __future__ import annotations

import json
from pathlib import Path

FAIL_LABEL = "testbed.deploy-runner/fail"
RUNTIME_ANNOTATION = "testbed.deploy-runner/runtime"
EXIT_CODE_ENV = "TESTBED_EXIT_CODE"
LOG_ENV = "TESTBED_LOG"
POD_LOG_LINES = (
    "deploy-runner testbed: container started",
    "deploy-runner testbed: doing the work",
    "deploy-runner testbed: done",
)

# What each node offers: a typical cloud worker node (8 vCPU, 32 GiB, a 100 GiB root disk,
# the kubelet's default of 110 pods), less what its kubelet keeps back as EKS sets it for
# that size: kube-reserved cpu 90m and memory 255Mi + 11Mi per pod, ephemeral-storage
# 1Gi, and the eviction thresholds memory.available<100Mi, nodefs.available<10%. Charts
# that request ephemeral-storage (Bitnami's resourcesPreset) need it advertised at all.
NODE_CAPACITY = {"cpu": "8", "memory": "32Gi", "pods": "110", "ephemeral-storage": "100Gi"}
NODE_ALLOCATABLE = {"cpu": "7910m", "memory": "31203Mi", "pods": "110", "ephemeral-storage": "89Gi"}

_HEADER = "apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\n"

_NODE_STATUS = """\
      conditions:
      {{ range NodeConditions }}
      - type: {{ .type | Quote }}
        status: {{ .status | Quote }}
        reason: {{ .reason | Quote }}
        message: {{ .message | Quote }}
        lastHeartbeatTime: {{ $now | Quote }}
        lastTransitionTime: {{ $since | Quote }}
      {{ end }}
      addresses:
      - type: InternalIP
        address: {{ NodeIP | Quote }}
      - type: Hostname
        address: {{ .metadata.name | Quote }}
      daemonEndpoints:
        kubeletEndpoint:
          Port: KUBELET_PORT
"""

NODE_INITIALIZE = _HEADER + """\
metadata:
  name: node-initialize
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: NotIn
      values: ["True"]
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $since := $now }}
""" + _NODE_STATUS + """\
      capacity: NODE_CAPACITY
      allocatable: NODE_ALLOCATABLE
      nodeInfo:
        architecture: amd64
        operatingSystem: linux
        kubeletVersion: {{ printf "kwok-%s" Version | Quote }}
        kubeProxyVersion: {{ printf "kwok-%s" Version | Quote }}
        containerRuntimeVersion: {{ printf "kwok-%s" Version | Quote }}
        kernelVersion: {{ printf "kwok-%s" Version | Quote }}
        bootID: ""
        machineID: ""
        osImage: ""
        systemUUID: ""
      phase: Running
"""

# Node Leases (kwok --node-lease-duration-seconds) are the real heartbeat; this
# refreshes the conditions too, so `kubectl get nodes` never shows stale ones.
NODE_HEARTBEAT = _HEADER + """\
metadata:
  name: node-heartbeat
spec:
  resourceRef: {apiGroup: v1, kind: Node}
  selector:
    matchExpressions:
    - key: '.status.phase'
      operator: In
      values: [Running]
    - key: '.status.conditions.[] | select( .type == "Ready" ) | .status'
      operator: In
      values: ["True"]
  delay:
    durationMilliseconds: 20000
    jitterDurationMilliseconds: 25000
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $since := or .metadata.creationTimestamp $now }}
""" + _NODE_STATUS

_POD_IPS = """\
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
"""

# Go-template snippets of the pod stages (kwok renders them with sprig's functions).
# `$code` is the container's exit code: its TESTBED_EXIT_CODE, else `$default`.
_EXIT_CODE = (
    '{{ $code := $default }}{{ range .env }}{{ if eq .name "' + EXIT_CODE_ENV + '" }}'
    '{{ $code = atoi (default "0" .value) }}{{ end }}{{ end }}'
)
# A failure is dated an hour back: the Job controller waits 10 s, 20 s, 40 s... after
# a failed pod's finish time before it makes the next one, so its retries come at once.
_TIMES = """\
      {{ $now := Now }}
      {{ $past := dateInZone "2006-01-02T15:04:05Z" (now | dateModify "-1h") "UTC" }}
"""

POD_READY = _HEADER + """\
metadata:
  name: pod-ready
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: [Pending]
  next:
    statusTemplate: |
""" + _TIMES + """\
      {{ $default := 0 }}
      {{ $always := eq (default "Always" .spec.restartPolicy) "Always" }}
      {{ $initFailed := false }}
      {{ $crashing := false }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      """ + _EXIT_CODE + """
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        restartCount: 0
      {{ if $initFailed }}
        ready: false
        state:
          waiting: {reason: PodInitializing}
      {{ else if ne $code 0 }}
        {{ $initFailed = true }}
        ready: false
        state:
          terminated: {exitCode: {{ $code }}, reason: Error, startedAt: {{ $past | Quote }}, finishedAt: {{ $past | Quote }}}
      {{ else }}
        ready: true
        state:
          terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}
      {{ end }}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      """ + _EXIT_CODE + """
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
      {{ if $initFailed }}
        ready: false
        started: false
        restartCount: 0
        state:
          waiting: {reason: PodInitializing}
      {{ else if and $always (ne $code 0) }}
        {{ $crashing = true }}
        ready: false
        started: false
        restartCount: 1
        state:
          waiting: {reason: CrashLoopBackOff, message: {{ printf "back-off 10s restarting failed container=%s pod=%s_%s(%s)" .name $.metadata.name $.metadata.namespace $.metadata.uid | Quote }}}
        lastState:
          terminated: {exitCode: {{ $code }}, reason: Error, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}
      {{ else }}
        ready: true
        started: true
        restartCount: 0
        state:
          running: {startedAt: {{ $now | Quote }}}
      {{ end }}
      {{ end }}
      {{ if $initFailed }}
      conditions:
      - {type: Initialized, status: "False", reason: ContainersNotInitialized, lastTransitionTime: {{ $past | Quote }}}
      - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $past | Quote }}}
      - {type: Ready, status: "False", reason: PodFailed, lastTransitionTime: {{ $past | Quote }}}
      phase: Failed
      {{ else }}
      conditions:
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ if $crashing }}
      - {type: ContainersReady, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "False", reason: ContainersNotReady, lastTransitionTime: {{ $now | Quote }}}
      {{ else }}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ end }}
      {{ range .spec.readinessGates }}
      - {type: {{ .conditionType | Quote }}, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ end }}
      phase: Running
      {{ end }}
""" + _POD_IPS + """\
      startTime: {{ $now | Quote }}
"""

# Pods that run to completion: a Job's, a Helm hook's (a `helm test` Pod too), one
# labelled to fail, and one whose containers exit (TESTBED_EXIT_CODE) and are not restarted.
_COMPLETES = (
    '(.metadata.ownerReferences // [] | any(.kind == "Job"))'
    ' or ((.metadata.annotations // {}) | has("helm.sh/hook"))'
    ' or ((.metadata.labels // {})["' + FAIL_LABEL + '"] == "true")'
    ' or ((.spec.restartPolicy // "Always") != "Always"'
    ' and ([.spec.containers[].env[]? | select(.name == "' + EXIT_CODE_ENV + '")] | length > 0))'
)

POD_COMPLETE = _HEADER + """\
metadata:
  name: pod-complete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: [Running]
    - key: '""" + _COMPLETES + """'
      operator: In
      values: ["true"]
  delay:
    durationFrom:
      jq:
        expression: '.metadata.annotations[\"""" + RUNTIME_ANNOTATION + """\"]'
  next:
    statusTemplate: |
""" + _TIMES + """\
      {{ $default := ternary 1 0 (eq (get (default dict .metadata.labels) \"""" + FAIL_LABEL + """\") "true") }}
      {{ $failed := false }}
      {{ range .spec.containers }}
      """ + _EXIT_CODE + """
      {{ if ne $code 0 }}{{ $failed = true }}{{ end }}
      {{ end }}
      {{ $at := ternary $past $now $failed }}
      conditions:
      - {type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{ $at | Quote }}}
      - {type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{ $at | Quote }}}
      containerStatuses:
      {{ range .spec.containers }}
      """ + _EXIT_CODE + """
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated: {exitCode: {{ $code }}, reason: {{ ternary "Completed" "Error" (eq $code 0) }}, startedAt: {{ $at | Quote }}, finishedAt: {{ $at | Quote }}}
      {{ end }}
      phase: {{ ternary "Failed" "Succeeded" $failed }}
"""

POD_DELETE = _HEADER + """\
metadata:
  name: pod-delete
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: Exists
  next:
    delete: true
"""


def write_kwok_config(directory: Path, kubelet_port: int) -> Path:
    """Write kwok's config (its stages); return its path. Nodes name `kubelet_port` as
    their kubelet's: the API server asks the pod log server there for container logs."""
    node_initialize = (NODE_INITIALIZE.replace("NODE_CAPACITY", json.dumps(NODE_CAPACITY))
                       .replace("NODE_ALLOCATABLE", json.dumps(NODE_ALLOCATABLE)))
    documents = (
        node_initialize.replace("KUBELET_PORT", str(kubelet_port)),
        NODE_HEARTBEAT.replace("KUBELET_PORT", str(kubelet_port)),
        POD_READY, POD_COMPLETE, POD_DELETE,
    )
    config = directory / "kwok.yaml"
    config.write_text("---\n".join(documents))
    return config
