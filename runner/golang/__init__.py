"""Go's own semantics in one place, for the layers above: the Go value model
(types), strconv, fmt, time (Format, Parse, Duration, time.Time's methods),
the signature of a Go function as text/template sees it (gofunc) and
path/filepath.Match.

Imports nothing of runner/: everything else may import it. See docs/engine.md.
"""
