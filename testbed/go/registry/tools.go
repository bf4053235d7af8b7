//go:build tools

// Pins the CNCF distribution registry (the OCI registry the chart-source
// e2e tests push to and pull from); built by testbed/registry.py.
package tools

import _ "github.com/distribution/distribution/v3/cmd/registry"
