"""API key authentication."""
