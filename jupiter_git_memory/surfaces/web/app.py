"""The review UI's ASGI app, mounted by the API at `/ui`: templates, static files, login, guards.

Guards, in the order every request meets them:
1. the session cookie (HttpOnly, SameSite=Strict) names a live session whose token still exists;
2. the workspace in the path is granted to that token (403 before 404, as in the API);
3. a POST carries the session's CSRF token and, when the browser says where it came from (Origin,
   Sec-Fetch-Site), comes from this origin. All of this runs before any service call, so a refused
   request never changes state.
Responses carry a strict Content-Security-Policy (no inline script, nothing from elsewhere).
"""

from __future__ import annotations

import secrets
import time
from typing import Annotated
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...base import error_codes as E
from ...base.errors import JgmError
from ...base.store import log, trace
from ..api.deps import ApiState
from .pages import HERE, SECURITY_HEADERS, Form, NeedLogin, Refused, base, page, require_session, same_origin, sessions
from .session import COOKIE, PRE_COOKIE, Session, Sessions, cookie_args


def create_web_app(state: ApiState) -> FastAPI:
    from . import views_drift, views_health, views_recall, views_records, views_review

    web = FastAPI(openapi_url=None, docs_url=None, redoc_url=None)
    web.state.jgm = state
    web.state.sessions = state.extra.setdefault("web_sessions", Sessions(state.tokens))
    web.mount("/static", StaticFiles(directory=HERE / "static"), name="static")

    @web.middleware("http")
    async def headers(request: Request, call_next):
        started, cpu = time.perf_counter(), time.process_time()
        response = await call_next(request)
        response.headers["server-timing"] = (
            f"app;dur={(time.perf_counter() - started) * 1000:.1f}, cpu;dur={(time.process_time() - cpu) * 1000:.1f}"
        )
        for k, v in SECURITY_HEADERS.items():
            response.headers.setdefault(k, v)
        return response

    @web.exception_handler(NeedLogin)
    async def _login(request: Request, exc: NeedLogin):
        if request.method != "GET":
            return page(
                request,
                "error.html",
                E.AUTH_NO_SESSION.status,
                code=E.AUTH_NO_SESSION.code,
                message="no session (or it expired): log in again; nothing was changed",
            )
        nxt = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"{base(request)}/login?next={quote(nxt)}", status_code=303)

    @web.exception_handler(JgmError)
    async def _error(request: Request, exc: JgmError):
        return page(request, "error.html", exc.status, code=exc.code, message=exc.message)

    @web.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 404:
            return page(request, "error.html", 404, code=E.ROUTE_NOT_FOUND.code, message=f"no page {request.url.path}")
        return page(request, "error.html", exc.status_code, code=E.http_code(exc.status_code), message=str(exc.detail))

    @web.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        where = "; ".join(".".join(str(p) for p in e.get("loc", ())) + f": {e.get('msg')}" for e in exc.errors()[:5])
        return page(request, "error.html", 422, code=E.REQUEST_INVALID.code, message=f"invalid request: {where}")

    @web.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception):
        log(f"ui: {request.method} {request.url.path} failed: {trace(exc)}")
        return page(
            request,
            "error.html",
            500,
            code=E.INTERNAL_ERROR.code,
            message=f"internal error ({exc.__class__.__name__}); details are in the store log",
        )

    @web.get("/login", response_class=HTMLResponse)
    def login_page(request: Request, next: str = ""):
        pre = secrets.token_urlsafe(24)
        resp = page(request, "login.html", next=_safe_next(request, next), pre=pre, error=None)
        resp.set_cookie(PRE_COOKIE, pre, max_age=3600, **cookie_args(base(request) + "/login"))
        return resp

    @web.post("/login")
    async def login(request: Request):
        form = await request.form()
        pre = request.cookies.get(PRE_COOKIE)
        if not same_origin(request) or not pre or not secrets.compare_digest(pre, str(form.get("pre", ""))):
            raise Refused(E.CSRF_MISSING_TOKEN, "the login form expired or came from another site; reload it")
        s = sessions(request).login(str(form.get("token", "")))
        nxt = _safe_next(request, str(form.get("next", "")))
        if s is None:
            new_pre = secrets.token_urlsafe(24)
            resp = page(
                request,
                "login.html",
                401,
                next=nxt,
                pre=new_pre,
                error="unknown token: use the one in $JGM_HOME/api-token or one from `jgm token create`",
            )
            resp.set_cookie(PRE_COOKIE, new_pre, max_age=3600, **cookie_args(base(request) + "/login"))
            return resp
        resp = RedirectResponse(nxt, status_code=303)
        resp.set_cookie(COOKIE, s.sid, max_age=12 * 3600, **cookie_args(base(request) + "/"))
        resp.delete_cookie(PRE_COOKIE, path=base(request) + "/login")
        return resp

    @web.post("/logout")
    def logout(request: Request, form: Form):
        sessions(request).logout(request.cookies.get(COOKIE))
        resp = RedirectResponse(f"{base(request)}/login", status_code=303)
        resp.delete_cookie(COOKIE, path=base(request) + "/")
        return resp

    @web.get("/", response_class=HTMLResponse)
    def home(request: Request, session: Annotated[Session, Depends(require_session)]):
        served = [w for w in sorted(state.handles) if session.may_read(state.grant_id(w))]
        if len(served) == 1:
            return RedirectResponse(f"{base(request)}/w/{served[0]}/", status_code=303)
        return page(request, "home.html", workspaces=served)

    for module in (views_review, views_drift, views_records, views_recall, views_health):
        web.include_router(module.router, prefix="/w/{ws}")
    return web


def _safe_next(request: Request, nxt: str) -> str:
    """Only a path inside the UI (never another host) is a place to go back to after login."""
    b = base(request)
    if nxt.startswith(b + "/") and not nxt.startswith("//") and "\\" not in nxt and ":" not in nxt.split("?")[0]:
        return nxt
    return b + "/"


def mount(app: FastAPI, state: ApiState) -> None:
    app.mount("/ui", create_web_app(state))
