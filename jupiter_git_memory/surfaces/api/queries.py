"""A request model (app/) taken from a route's path or query: FastAPI 0.110 reads bodies into models but not
query or path parameters, so `request_from(Model)` is a dependency whose parameters are the model's fields
(type, bounds, pattern and description, as OpenAPI shows them) and which builds the request from them. FastAPI
validates each parameter first, so a bad one is the usual 422 naming it; the fields are written once, in app/.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import Path, Query
from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


def request_from(model: type[M], where: Callable[..., Any] = Query, names: dict[str, str] | None = None) -> Any:
    """The dependency: `where` is Query or Path; `names` renames a field for the route (`{record_id}`)."""
    names = names or {}
    fields = model.model_fields
    params = [
        inspect.Parameter(
            names.get(name, name),
            inspect.Parameter.KEYWORD_ONLY,
            default=inspect.Parameter.empty if f.is_required() else f.get_default(call_default_factory=True),
            annotation=Annotated[(f.annotation, *f.metadata, where(description=f.description))],  # type: ignore[valid-type]
        )
        for name, f in fields.items()
    ]

    def build(**given: Any) -> M:
        return model.model_construct(**{name: given[names.get(name, name)] for name in fields})

    build.__signature__ = inspect.Signature(params, return_annotation=model)  # type: ignore[attr-defined]
    build.__name__ = f"{model.__name__}_from_{where.__name__.lower()}"
    return build


def path_request(model: type[M], **names: str) -> Any:
    return request_from(model, Path, names)
