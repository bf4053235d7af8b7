"""kwok's configuration: how simulated nodes and pods behave, and what pod logs say.

Standalone kwok has no built-in behaviour; everything comes from Stages
(kwok.x-k8s.io/v1alpha1). These are written for tests:

- a node becomes Ready at once and keeps sending heartbeats;
- a scheduled pod becomes Running and Ready;
- a Job's pod then Succeeds, so Jobs complete; so does a `helm test` Pod
  (annotation ``helm.sh/hook: test`` or ``test-success``);
- a pod labelled ``testbed.deploy-runner/fail: "true"`` Fails instead
  (exit code 1), so a Job whose template carries the label fails;
- a pod being deleted is removed.

A ClusterLogs object makes the pod log API (served by kwok, reached by the
apiserver like a kubelet) return ``POD_LOG_LINES`` for every container.
"""

from __future__ import annotations

from pathlib import Path

FAIL_LABEL = "testbed.deploy-runner/fail"
POD_LOG_LINES = (
    "deploy-runner testbed: container started",
    "deploy-runner testbed: doing the work",
    "deploy-runner testbed: done",
)

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
          Port: {{ NodePort }}
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
      capacity: {cpu: "64", memory: 256Gi, pods: "250"}
      allocatable: {cpu: "64", memory: 256Gi, pods: "250"}
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
      {{ $now := Now }}
      conditions:
      - {type: Initialized, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: ContainersReady, status: "True", lastTransitionTime: {{ $now | Quote }}}
      - {type: Ready, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ range .spec.readinessGates }}
      - {type: {{ .conditionType | Quote }}, status: "True", lastTransitionTime: {{ $now | Quote }}}
      {{ end }}
      initContainerStatuses:
      {{ range .spec.initContainers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        restartCount: 0
        state:
          terminated: {exitCode: 0, reason: Completed, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}
      {{ end }}
      containerStatuses:
      {{ range .spec.containers }}
      - name: {{ .name | Quote }}
        image: {{ .image | Quote }}
        ready: true
        started: true
        restartCount: 0
        state:
          running: {startedAt: {{ $now | Quote }}}
      {{ end }}
""" + _POD_IPS + """\
      phase: Running
      startTime: {{ $now | Quote }}
"""


def _pod_finished(name: str, selector: str, phase: str, exit_code: int, reason: str) -> str:
    return _HEADER + f"""\
metadata:
  name: {name}
spec:
  resourceRef: {{apiGroup: v1, kind: Pod}}
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: DoesNotExist
    - key: '.status.phase'
      operator: In
      values: [Running]
{selector}
  next:
    statusTemplate: |
      {{{{ $now := Now }}}}
      conditions:
      - {{type: Ready, status: "False", reason: PodCompleted, lastTransitionTime: {{{{ $now | Quote }}}}}}
      - {{type: ContainersReady, status: "False", reason: PodCompleted, lastTransitionTime: {{{{ $now | Quote }}}}}}
      containerStatuses:
      {{{{ range .spec.containers }}}}
      - name: {{{{ .name | Quote }}}}
        image: {{{{ .image | Quote }}}}
        ready: false
        started: false
        restartCount: 0
        state:
          terminated: {{exitCode: {exit_code}, reason: {reason}, startedAt: {{{{ $now | Quote }}}}, finishedAt: {{{{ $now | Quote }}}}}}
      {{{{ end }}}}
      phase: {phase}
"""


_FAIL_LABEL_KEY = f"'.metadata.labels[\"{FAIL_LABEL}\"]'"

POD_SUCCEED = _pod_finished(
    "pod-succeed",
    "    - key: '.metadata.ownerReferences.[].kind'\n      operator: In\n      values: [Job]\n"
    f"    - key: {_FAIL_LABEL_KEY}\n      operator: NotIn\n      values: [\"true\"]",
    "Succeeded", 0, "Completed",
)

POD_TEST_SUCCEED = _pod_finished(
    "pod-test-succeed",
    "    - key: '.metadata.annotations[\"helm.sh/hook\"]'\n      operator: In\n      values: [test, test-success]\n"
    f"    - key: {_FAIL_LABEL_KEY}\n      operator: NotIn\n      values: [\"true\"]",
    "Succeeded", 0, "Completed",
)

POD_FAIL = _pod_finished(
    "pod-fail",
    f"    - key: {_FAIL_LABEL_KEY}\n      operator: In\n      values: [\"true\"]",
    "Failed", 1, "Error",
)

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


def _cluster_logs(log_file: Path) -> str:
    return f"""\
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: every-pod
spec:
  logs:
  - logsFile: {log_file}
"""


def write_kwok_config(directory: Path) -> Path:
    """Write kwok's config (stages, logs) and the log file; return the config path."""
    log_file = directory / "container.log"
    # CRI log format, the one kubelet's log reader (used by kwok) parses.
    log_file.write_text(
        "".join(f"2026-01-01T00:00:0{i}.000000000Z stdout F {line}\n" for i, line in enumerate(POD_LOG_LINES))
    )
    documents = (
        NODE_INITIALIZE, NODE_HEARTBEAT, POD_READY, POD_SUCCEED, POD_TEST_SUCCEED, POD_FAIL, POD_DELETE,
        _cluster_logs(log_file),
    )
    config = directory / "kwok.yaml"
    config.write_text("---\n".join(documents))
    return config
