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

import json
import re
import secrets
import time
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlsplit

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...base import error_codes as E
from ...base.errors import JgmError
from ...base.store import log, trace
from ..api.deps import WS_PATTERN, ApiState
from . import render
from .session import COOKIE, PRE_COOKIE, Session, Sessions, cookie_args

HERE = Path(__file__).parent
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
}

env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
env.globals.update(markdown=render.markdown, age=render.age, when=render.when, short=render.short)
env.filters["pretty"] = lambda d: json.dumps(d, indent=2, sort_keys=True, default=str)


class Refused(JgmError):
    """A request the UI will not run: rendered as an error page with its status; nothing was changed."""

    def __init__(self, code: E.ErrorCode, message: str):
        super().__init__(message, code=code)


class NeedLogin(Exception):
    pass


def base(request: Request) -> str:
    return request.scope.get("root_path", "").rstrip("/")


def page(request: Request, template: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    session: Session | None = getattr(request.state, "session", None)
    ctx.setdefault("ws", None)
    html = env.get_template(template).render(
        request=request, base=base(request), session=session, csrf=session.csrf if session else "", **ctx
    )
    return HTMLResponse(html, status_code=status)


def sessions(request: Request) -> Sessions:
    return request.app.state.sessions


def state_of(request: Request) -> ApiState:
    return request.app.state.jgm


def require_session(request: Request) -> Session:
    s = sessions(request).get(request.cookies.get(COOKIE))
    if s is None:
        raise NeedLogin()
    request.state.session = s
    return s


def require_workspace(ws: str, request: Request, session: Annotated[Session, Depends(require_session)]):
    """The workspace's handle, if this session's token is granted it; 403 first, so ids never leak."""
    if not re.match(WS_PATTERN, ws) or not session.may_read(state_of(request).grant_id(ws)):
        raise Refused(
            E.WORKSPACE_FORBIDDEN,
            f"this session's token ({session.token_name}) is not granted "
            f"workspace {ws!r}; `jgm token grant {session.token_name} WS` grants it",
        )
    handle = state_of(request).handle(ws)
    if handle is None:
        raise Refused(E.WORKSPACE_NOT_FOUND, f"workspace {ws!r} is not served by this server")
    request.state.ws = ws
    return handle


def _same_origin(request: Request) -> bool:
    if request.headers.get("sec-fetch-site") not in (None, "same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin is None:  # no Origin header: not a cross-site form post of a current browser
        return True
    host = request.headers.get("host", "")
    return urlsplit(origin).netloc == host


async def checked_form(request: Request, session: Annotated[Session, Depends(require_session)]) -> FormData:
    """The POSTed form, only when it carries this session's CSRF token and comes from this origin."""
    form = await request.form()
    if not _same_origin(request):
        raise Refused(E.CSRF_CROSS_SITE, "cross-site request refused; nothing was changed")
    if not session.csrf_ok(form.get("csrf")):
        raise Refused(
            E.CSRF_MISSING_TOKEN,
            "the form's CSRF token is missing or wrong (reload the page and try again); nothing was changed",
        )
    return form


Form = Annotated[FormData, Depends(checked_form)]


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
        if not _same_origin(request) or not pre or not secrets.compare_digest(pre, str(form.get("pre", ""))):
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
