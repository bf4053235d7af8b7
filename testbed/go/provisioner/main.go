// Command hostpath-provisioner is the testbed's dynamic volume provisioner: the
// ProvisionController of sigs.k8s.io/sig-storage-lib-external-provisioner (the
// controller that external provisioners, the CSI external-provisioner among them,
// are built on) serving a StorageClass with host directories as volumes.
//
// It is the library's examples/hostpath-provisioner, which the module's release
// archive leaves out (it is a module of its own there), ported to v13's API and to
// run out of cluster: it reads a kubeconfig instead of a service account and takes
// its directory as a flag. A claim of its class gets a directory under -directory
// and a hostPath PersistentVolume for it; with volumeBindingMode WaitForFirstConsumer
// the volume is pinned to the node the scheduler chose (as local volumes are). When a
// Delete-policy volume is released, its directory is removed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	"sigs.k8s.io/sig-storage-lib-external-provisioner/v13/controller"
)

type hostPathProvisioner struct {
	directory string // every volume is a directory under it
}

var _ controller.Provisioner = &hostPathProvisioner{}

func (p *hostPathProvisioner) Provision(ctx context.Context, options controller.ProvisionOptions) (*v1.PersistentVolume, controller.ProvisioningState, error) {
	claim := options.PVC
	if claim.Spec.VolumeMode != nil && *claim.Spec.VolumeMode == v1.PersistentVolumeBlock {
		return nil, controller.ProvisioningFinished, errors.New("block volumes are not supported: a host directory is a filesystem")
	}
	path := filepath.Join(p.directory, options.PVName)
	if err := os.MkdirAll(path, 0o777); err != nil {
		return nil, controller.ProvisioningFinished, err
	}
	reclaim := v1.PersistentVolumeReclaimDelete
	if options.StorageClass.ReclaimPolicy != nil {
		reclaim = *options.StorageClass.ReclaimPolicy
	}
	directoryOrCreate := v1.HostPathDirectoryOrCreate
	pv := &v1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: options.PVName},
		Spec: v1.PersistentVolumeSpec{
			PersistentVolumeReclaimPolicy: reclaim,
			AccessModes:                   claim.Spec.AccessModes,
			VolumeMode:                    claim.Spec.VolumeMode,
			MountOptions:                  options.StorageClass.MountOptions,
			Capacity: v1.ResourceList{
				v1.ResourceStorage: claim.Spec.Resources.Requests[v1.ResourceStorage],
			},
			PersistentVolumeSource: v1.PersistentVolumeSource{
				HostPath: &v1.HostPathVolumeSource{Path: path, Type: &directoryOrCreate},
			},
			NodeAffinity: nodeAffinity(options.SelectedNodeName),
		},
	}
	klog.FromContext(ctx).Info("provisioned", "volume", options.PVName, "claim", klog.KObj(claim), "node", options.SelectedNodeName)
	return pv, controller.ProvisioningFinished, nil
}

// A host directory lives on one node: a volume provisioned for the node the
// scheduler chose can only be used there. Immediate binding chooses no node.
func nodeAffinity(node string) *v1.VolumeNodeAffinity {
	if node == "" {
		return nil
	}
	return &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{NodeSelectorTerms: []v1.NodeSelectorTerm{{
		MatchExpressions: []v1.NodeSelectorRequirement{{
			Key: "kubernetes.io/hostname", Operator: v1.NodeSelectorOpIn, Values: []string{node},
		}},
	}}}}
}

func (p *hostPathProvisioner) Delete(ctx context.Context, volume *v1.PersistentVolume) error {
	source := volume.Spec.HostPath
	if source == nil || filepath.Dir(source.Path) != filepath.Clean(p.directory) {
		return &controller.IgnoredError{Reason: "the volume is not a directory of this provisioner"}
	}
	if err := os.RemoveAll(source.Path); err != nil {
		return err
	}
	klog.FromContext(ctx).Info("deleted", "volume", volume.Name)
	return nil
}

func main() {
	klog.InitFlags(nil)
	kubeconfig := flag.String("kubeconfig", "", "the kubeconfig to reach the API server with")
	directory := flag.String("directory", "", "the host directory volumes are made in")
	name := flag.String("provisioner-name", "", "the provisioner name StorageClasses give")
	flag.Parse()
	if *kubeconfig == "" || *directory == "" || *name == "" {
		fmt.Fprintln(os.Stderr, "hostpath-provisioner: -kubeconfig, -directory and -provisioner-name are required")
		os.Exit(2)
	}
	syscall.Umask(0) // volume directories are 0777, writable whatever user a pod runs as

	config, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		klog.Fatalf("reading %s: %v", *kubeconfig, err)
	}
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		klog.Fatalf("creating a client: %v", err)
	}
	if err := os.MkdirAll(*directory, 0o777); err != nil {
		klog.Fatalf("creating %s: %v", *directory, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	provisioner := &hostPathProvisioner{directory: strings.TrimRight(*directory, "/")}
	// One provisioner per testbed: no leader election (it would need a namespace and Leases).
	controller.NewProvisionController(ctx, client, *name, provisioner,
		controller.LeaderElection(false),
	).Run(ctx)
}
