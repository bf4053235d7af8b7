//go:build tools

// Pins helm-diff (the `helm diff` plugin), built by testbed/helmdiff.py.
package tools

import _ "github.com/databus23/helm-diff/v3"
