//go:build tools

// Pins actionlint (checks examples/workflows against action.yml), built by
// tests/workflows/test_actionlint.py through testbed.build.go_tool.
package tools

import _ "github.com/rhysd/actionlint/cmd/actionlint"
