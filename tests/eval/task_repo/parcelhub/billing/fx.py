"""Currency conversion."""
