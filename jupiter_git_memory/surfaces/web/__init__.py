"""The review UI served by `jgm serve` at `/ui/`: server-rendered pages over the same services as the
CLI, API and MCP (candidates, records, recall, receipts, doctor). See `app.py` for its guards."""

from .app import create_web_app, mount

__all__ = ["create_web_app", "mount"]
