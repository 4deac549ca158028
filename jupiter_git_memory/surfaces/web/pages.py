"""What every page of the review UI shares: the templates, the page renderer, and the guards a route asks
for (session, workspace grant, CSRF-checked form; app.py says in which order a request meets them).
Below app.py, which builds the ASGI app, and the views_*.py routers it mounts, which import only this.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.datastructures import FormData

from ...base import error_codes as E
from ...base.errors import JgmError
from ...records.text import show_hidden
from ..api.deps import WS_PATTERN, ApiState
from . import render
from .session import COOKIE, Session, Sessions

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
env.filters["visible"] = show_hidden  # what a page shows of agent text: no control or format character unseen
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


def same_origin(request: Request) -> bool:
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
    if not same_origin(request):
        raise Refused(E.CSRF_CROSS_SITE, "cross-site request refused; nothing was changed")
    if not session.csrf_ok(form.get("csrf")):
        raise Refused(
            E.CSRF_MISSING_TOKEN,
            "the form's CSRF token is missing or wrong (reload the page and try again); nothing was changed",
        )
    return form


Form = Annotated[FormData, Depends(checked_form)]
