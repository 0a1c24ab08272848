//go:build tools

// Package kube pins the Kubernetes control-plane binaries that the tests and `make run` start.
// It is never compiled; it only makes `go mod tidy` keep the commands' dependencies.
package kube

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
