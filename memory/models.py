"""Memory records arrive with the write path (issue 4)."""
