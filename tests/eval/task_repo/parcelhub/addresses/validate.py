"""Address checks."""
