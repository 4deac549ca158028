"""Order factories."""
