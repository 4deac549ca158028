"""Every error the API returns has one JSON shape with a stable code:

    {"error": {"code": "memory/not-found", "message": "...", "details": [...]}}

including FastAPI's validation errors (422), Starlette's unknown routes (404/405) and crashes (500),
so clients branch on `code`, never on prose. `CrashGuard` makes that hold for a crash the handlers
cannot render either (a handler that fails itself, e.g. when the process ran out of file descriptors).
"""

from __future__ import annotations

import errno
import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...base import error_codes as E
from ...base.error_codes import ErrorCode
from ...base.errors import JgmError, store_problem
from ...base.store import trace, try_log


class ApiError(JgmError):
    """An error only the HTTP layer raises (auth, limits), with its own headers (e.g. WWW-Authenticate)."""

    def __init__(self, code: ErrorCode, message: str, headers: dict[str, str] | None = None):
        super().__init__(message, code=code)
        self.headers = headers


class ErrorDetail(BaseModel):
    model_config = ConfigDict(extra="allow")  # an error's details (id, path, commit ...) sit beside the code

    code: str = Field(json_schema_extra=E.openapi_schema())  # the catalogue's codes (documentation only)
    message: str
    details: list[dict[str, Any]] | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


def error_response(
    status: int, code: str, message: str, details: list | None = None, headers: dict[str, str] | None = None
) -> JSONResponse:
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


BAD_HOST = E.REQUEST_BAD_HOST.code  # 421: the Host header names no address of this server (api/hosts.py)

# the code of a web-framework HTTP error by its status (any other status is E.http_code's family)
_HTTP_CODES = {
    e.status: e.code
    for e in (
        E.ROUTE_NOT_FOUND,
        E.ROUTE_METHOD_NOT_ALLOWED,
        E.REQUEST_BAD_REQUEST,
        E.REQUEST_TOO_LARGE,
        E.REQUEST_UNSUPPORTED_MEDIA_TYPE,
        E.REQUEST_BAD_HOST,
    )
}


async def send_error(send, status: int, code: str, message: str) -> None:
    """The JSON error body from raw ASGI middleware, which runs outside FastAPI's handlers."""
    body = json.dumps({"error": {"code": code, "message": message}}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _validation_details(exc: RequestValidationError) -> list[dict]:
    out = []
    for e in exc.errors():
        # the rejected input is the caller's own data (and may be large): name the place, not the value
        out.append({"loc": [str(p) for p in e.get("loc", ())], "type": e.get("type"), "msg": e.get("msg")})
    return jsonable_encoder(out)


def install(app: FastAPI) -> None:
    @app.exception_handler(JgmError)
    async def _jgm_error(request: Request, exc: JgmError):
        """The API's one mapper for our errors: the status and the body come from the error itself."""
        headers = getattr(exc, "headers", None)
        if exc.retry_after:
            headers = {**(headers or {}), "Retry-After": str(exc.retry_after)}
        return JSONResponse({"error": exc.to_dict()}, status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        details = _validation_details(exc)
        where = ", ".join(".".join(d["loc"]) + f": {d['msg']}" for d in details[:5])
        return error_response(422, E.REQUEST_INVALID.code, f"invalid request: {where}", details)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        code = _HTTP_CODES.get(exc.status_code) or E.http_code(exc.status_code)
        message = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            message = f"no route {request.method} {request.url.path}; see /docs or /openapi.json"
        return error_response(exc.status_code, code, message, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        known = store_problem(exc)  # a full or read-only disk met where no store path was at hand (not a bug)
        if known is not None:
            return await _jgm_error(request, known)
        safe_log(f"api: {request.method} {request.url.path} failed: {trace(exc)}")
        return error_response(500, E.INTERNAL_ERROR.code, crash_message(exc))

    build = app.build_middleware_stack
    app.build_middleware_stack = lambda: CrashGuard(build())  # outside Starlette's own error middleware


def crash_message(exc: BaseException) -> str:
    why = exc.__class__.__name__
    if isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE):
        why += ": too many open files"
    return f"internal error ({why}); details are in the store log"


def safe_log(message: str) -> None:
    """Log without failing: the error being reported may be that no file can be opened."""
    try_log(message)


class CrashGuard:
    """Outermost ASGI layer: an exception that escapes the app before a response started still gets our
    JSON 500 (uvicorn would send a plain-text one). Starlette re-raises after its handler answered; then
    the response is already out and there is nothing left to do."""

    def __init__(self, app, label: str = "api"):
        self.app, self.label = app, label

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        started = False

        async def tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            if started:
                return
            safe_log(f"{self.label}: {scope.get('method')} {scope.get('path')} failed: {trace(exc)}")
            body = json.dumps({"error": {"code": E.INTERNAL_ERROR.code, "message": crash_message(exc)}}).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 500,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})


def typed(model: type[BaseModel]) -> dict[str, Any]:
    """Route options declaring `model` as the success body: the OpenAPI schema shows it, and the answer is
    checked against it without adding keys the answer did not have."""
    return {"response_model": model, "response_model_exclude_unset": True}


# Documented on every route so clients (and schema-driven tests) know the error shape.
COMMON_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody, "description": "Bad request (e.g. an id outside the id pattern)"},
    401: {"model": ErrorBody, "description": "Missing or unknown bearer token"},
    403: {"model": ErrorBody, "description": "The token is not granted this workspace"},
    404: {"model": ErrorBody, "description": "Unknown workspace, record, receipt or route"},
    413: {"model": ErrorBody, "description": "Request body over the size limit"},
    421: {"model": ErrorBody, "description": "The Host header names no address of this server (DNS-rebinding defence)"},
    422: {"model": ErrorBody, "description": "Request failed validation"},
}
