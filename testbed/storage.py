"""Volumes on the testbed: a default StorageClass served by a real dynamic provisioner.

The provisioner (testbed/go/provisioner/main.go, built on
sigs.k8s.io/sig-storage-lib-external-provisioner's ProvisionController) runs on the
host like the other components, with the admin kubeconfig. A claim of the class gets
a directory under the testbed's work directory and a hostPath PersistentVolume that
the controller manager binds to it. Binding waits for the first consumer, as on
kind and most clouds: the scheduler picks a node for the pod, notes it on the claim
(volume.kubernetes.io/selected-node), the provisioner pins the volume to that node,
and the pod is bound once its claims are. Released volumes (policy Delete) are
removed with their directory.
"""

from __future__ import annotations

from typing import Any

from testbed.api import ApiClient
from testbed.errors import TestbedError

PROVISIONER_NAME = "testbed.deploy-runner/hostpath"
STORAGE_CLASS = "standard"  # kind's and minikube's name for their default class

DEFAULT_STORAGE_CLASS: dict[str, Any] = {
    "apiVersion": "storage.k8s.io/v1",
    "kind": "StorageClass",
    "metadata": {
        "name": STORAGE_CLASS,
        "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
    },
    "provisioner": PROVISIONER_NAME,
    "reclaimPolicy": "Delete",
    "volumeBindingMode": "WaitForFirstConsumer",
}


def create_default_storage_class(api: ApiClient) -> None:
    """Create the default StorageClass (claims without a class get it)."""
    status, text = api.request("POST", "/apis/storage.k8s.io/v1/storageclasses", DEFAULT_STORAGE_CLASS)
    if status not in (201, 409):
        raise TestbedError(f"creating StorageClass {STORAGE_CLASS} failed: HTTP {status} {text[:300]}")
