"""Request body size limit as raw ASGI middleware.

Why buffer here rather than trust Content-Length: a chunked upload has no length, and FastAPI would
read it whole before validation. Reading at most `limit + 1` bytes first bounds memory per request;
the buffered body is then replayed to the app. Bodies are small JSON documents, so buffering is cheap.
"""

from __future__ import annotations

import json

from ...base import error_codes as E
from ...base.error_codes import ErrorCode

DEFAULT_MAX_BODY = 256 * 1024


class BodySizeLimit:
    def __init__(self, app, max_body: int = DEFAULT_MAX_BODY):
        self.app = app
        self.max_body = max_body

    async def _reject(self, send, error: ErrorCode, message: str) -> None:
        status = error.status
        body = json.dumps({"error": {"code": error.code, "message": message}}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_big = f"request body over {self.max_body} bytes"
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                return await self._reject(send, E.REQUEST_BAD_REQUEST, "invalid Content-Length header")
            if n > self.max_body:
                return await self._reject(send, E.REQUEST_TOO_LARGE, too_big)
        chunks, size = [], 0
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return None
            chunk = msg.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return await self._reject(send, E.REQUEST_TOO_LARGE, too_big)
            chunks.append(chunk)
            if not msg.get("more_body"):
                break
        buffered = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return buffered
            return await receive()

        return await self.app(scope, replay, send)
