"""The resident recall process: one per store, answering the CLI and the client hooks warm (client.py, server.py)."""
