"""Job queue consumer."""
