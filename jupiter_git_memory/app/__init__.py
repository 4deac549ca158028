"""The application layer: each operation's request, answer and errors, once, under every surface.

CLI, HTTP API, MCP, daemon and web build a request from their own inputs and render the answer; the
workspace handle, record reads and the limits every surface shares live here, not in any one surface.
"""
