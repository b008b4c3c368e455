"""A stand-in tool, registered in the one registry for a test and removed after it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import BaseModel

from core.registry import ToolSpec, registry


@contextmanager
def standin_tool(
    name: str,
    handler: Callable[[Any, Any], BaseModel],
    input_model: type[BaseModel],
    output_model: type[BaseModel],
    *,
    read_only: bool = True,
    scope: str = "memory:read",
) -> Iterator[ToolSpec]:
    spec = ToolSpec(
        name=name,
        toolset="remember",
        title=name,
        summary="s",
        description="d",
        input_model=input_model,
        output_model=output_model,
        scope=scope,
        handler=handler,
        read_only=read_only,
        idempotent=read_only,
        retry="r",
        returns="r",
    )
    registry._tools[spec.name] = spec
    try:
        yield spec
    finally:
        del registry._tools[spec.name]
