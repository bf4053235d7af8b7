//go:build tools

// Pins helmfile, built by testbed/helmfile.py.
package tools

import _ "github.com/helmfile/helmfile"
