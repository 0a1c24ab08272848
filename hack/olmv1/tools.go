//go:build tools

// Package tools pins operator-controller's module so that `go build .../cmd/...` resolves from go.mod.
package tools

import (
	_ "github.com/operator-framework/operator-controller/cmd/catalogd"
	_ "github.com/operator-framework/operator-controller/cmd/operator-controller"
)
