"""A tool's parameters taken from the operation's request model (app/), so the MCP schema says the names,
bounds and descriptions the HTTP API says, written once.

`@takes(Model)` turns `def tool(req: Model, ctx) -> Answer` into a function whose signature is the model's
fields, one keyword each (the SDK builds the tool's input schema from the signature), that builds the
request and calls it. A request the model refuses (a blank goal, an over-long entry) is a tool error with
the model's message, as any bad input is.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from pydantic import BaseModel, Field, ValidationError

from .errors import tool_error


def _parameter(name: str, field: Any) -> inspect.Parameter:
    shown = Annotated[(field.annotation, *field.metadata, Field(description=field.description))]  # type: ignore[valid-type]
    default = inspect.Parameter.empty if field.is_required() else field.get_default(call_default_factory=True)
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=shown)


def takes(model: type[BaseModel]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(fn)
        wants_ctx = "ctx" in inspect.signature(fn).parameters

        @functools.wraps(fn)
        def tool(**kwargs: Any) -> Any:
            ctx = kwargs.pop("ctx", None)
            try:
                req = model(**kwargs)
            except ValidationError as e:
                raise tool_error(e) from None
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
