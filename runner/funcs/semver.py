"""Template functions: semver family (filled in by its owner)."""
