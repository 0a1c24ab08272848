//go:build tools

// Package tools pins opm's module so that `go build .../cmd/opm` resolves from go.mod.
package tools

import _ "github.com/operator-framework/operator-registry/cmd/opm"
