//go:build tools

// Pins helmfile, built by runner/testbed/helmfile.py.
package tools

import _ "github.com/helmfile/helmfile"
