"""A JSON value, as an output schema declares it: every value has a type (MCP Inspector's ``--strict``)."""

from __future__ import annotations

from pydantic import SkipValidation
from typing_extensions import TypeAliasType

# Its schema: {"anyOf": [string, integer, number, boolean, an array of them, an object of them, null]}.
JsonValue = TypeAliasType(
    "JsonValue", "str | int | float | bool | list[JsonValue] | dict[str, JsonValue] | None"
)

# A cell of a result table (query_memories_with_sql, query_memory_graph): the schema says JsonValue, but
# the cell is not validated against it. The handlers build cells as JSON already (the SQL tool's
# converters, the graph's projection), and validating the recursive union cell by cell is what a reply
# of 10,000 rows would then spend most of its Python time on (measured in process: ~0.2 s for 10,000
# rows of seven cells, against ~3 ms unvalidated).
JsonCell = SkipValidation[JsonValue]
