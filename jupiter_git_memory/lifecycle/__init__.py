"""Lifecycle resolution: effective status from supersede links and false facts (pure)."""
