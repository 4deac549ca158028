"""Surfaces agents and people use: CLI, HTTP API, MCP server, web UI (the Git hooks and the watcher that keep
the index fresh are in freshness/)."""
