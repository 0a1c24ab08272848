//go:build tools

// Package kube pins the Kubernetes binaries that the tests and `make run` start: the control plane
// and the node (scheduler, kubelet, kube-proxy).
// It is never compiled; it only makes `go mod tidy` keep the commands' dependencies.
package kube

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
	_ "k8s.io/kubernetes/cmd/kubelet"
)
