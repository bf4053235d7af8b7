"""Template functions: regex family (filled in by its owner)."""
