"""Release diffs: what a deploy changes, object by object (runner.diff.compute), as plain
data (runner.diff.model). No cluster access here: runner.kube.preview gives the live side."""
