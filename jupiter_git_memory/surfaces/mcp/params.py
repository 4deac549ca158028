"""A tool's parameters taken from the operation's request model (app/), so the MCP schema says the names,
bounds and descriptions the HTTP API says, written once.

`@takes(Model)` turns `def tool(req: Model, ctx) -> Answer` into a function whose signature is the model's
fields, one keyword each (the SDK builds the tool's input schema from the signature and validates each
argument against it), that builds the request and calls it. A pattern (`\\S`: not blank; a revision's
shape) is declared in the schema but left to the operation, which refused such input before the tools
took their parameters from the models, with its own code and message (`[request/bad-request] --goal is
empty: ...`).
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field


def _parameter(name: str, field: Any) -> inspect.Parameter:
    """The field as one keyword: its type and bounds checked by the SDK, its pattern only declared (the
    operation checks the text itself and says what to fix: `--goal is empty`, an unknown revision)."""
    patterns = [m.pattern for m in field.metadata if getattr(m, "pattern", None) is not None]
    checked = [m for m in field.metadata if getattr(m, "pattern", None) is None]
    about = Field(description=field.description, json_schema_extra={"pattern": patterns[0]} if patterns else None)
    shown = Annotated[(field.annotation, *checked, about)]  # type: ignore[valid-type]
    default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=shown)


def takes(model: type[BaseModel]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(fn)
        wants_ctx = "ctx" in inspect.signature(fn).parameters

        @functools.wraps(fn)
        def tool(**kwargs: Any) -> Any:
            ctx = kwargs.pop("ctx", None)
            req = model.model_construct(**kwargs)  # the SDK validated each argument against its parameter
            return fn(req, ctx) if wants_ctx else fn(req)

        params = [_parameter(name, f) for name, f in model.model_fields.items()]
        annotations = {p.name: p.annotation for p in params}
        if wants_ctx:
            params.append(inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Context))
            annotations["ctx"] = Context
        annotations["return"] = hints["return"]
        tool.__signature__ = inspect.Signature(params, return_annotation=hints["return"])  # type: ignore[attr-defined]
        tool.__annotations__ = annotations
        return tool

    return wrap
