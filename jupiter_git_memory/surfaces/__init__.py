"""Surfaces agents and people use: CLI, HTTP API, MCP server, Git hooks, watcher."""
