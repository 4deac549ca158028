"""uvicorn that prints the ready line once it accepts connections.

Why: the line used to be printed when the socket was bound, before the lifespan warmed the model, so a
client that trusted it got "connection refused" for the next 3-4 s. uvicorn runs the lifespan startup
and then listens on the sockets inside `startup()`; after it returns, connections are accepted.
"""

from __future__ import annotations

import json
import sys

import uvicorn


class ReadyServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, ready: dict):
        super().__init__(config)
        self.ready = ready

    async def startup(self, sockets=None) -> None:
        await super().startup(sockets=sockets)
        if self.started and not self.should_exit:
            sys.stdout.write(json.dumps(self.ready) + "\n")
            sys.stdout.flush()
