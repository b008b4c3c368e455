"""``field__any=[...]``: ``field = ANY(<array>)``, the list sent as one array parameter.

The read path filters by the hundreds of memory ids a ranking produced (candidates, neighbours,
page). ``__in`` writes one literal per id, and Django and psycopg prepare, adapt and quote each one:
measured on search_memory at 100k memories, ~1,200 ids a call and several milliseconds of CPU. One
array is one parameter, written here as PostgreSQL's array literal (one string; psycopg's list
dumper adapted each element in Python, ~4% of a search's CPU) and cast by the server. Registered on
every field (``memory.apps``); foreign keys cast to their target's type.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.db.models import Field, ForeignObject, Lookup

_BARE = re.compile(r"^[A-Za-z0-9_.:+-]+$")


def array_literal(values: Iterable[Any]) -> str:
    """PostgreSQL's text form of an array: ``{a,b,"c d"}``. An element that is not plainly a word
    (empty, spaces, quotes, braces, commas, backslashes, NULL) is double-quoted and escaped."""
    items = []
    for value in values:
        text = str(value)
        if _BARE.match(text) and text.upper() != "NULL":
            items.append(text)
        else:
            items.append('"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return "{" + ",".join(items) + "}"


def vector_literal(values: Iterable[float]) -> str:
    """pgvector's text form of a vector, ``[0.1234567,...]`` (seven decimals: a float32's precision)."""
    return "[" + ",".join(f"{v:.7f}" for v in values) + "]"


class AnyOf(Lookup[Any]):
    lookup_name = "any"
    prepare_rhs = False

    def get_db_prep_lookup(self, value: Any, connection: Any) -> Any:
        return "%s", (array_literal(value),)

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        db_type = self.lhs.output_field.db_type(connection)
        return f"{lhs} = ANY({rhs}::{db_type}[])", (*lhs_params, *rhs_params)


def register() -> None:
    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # relations read their own lookups only
