"""``field__any=[...]``: ``field = ANY(<array>)``, the list sent as one array parameter.

The read path filters by the hundreds of memory ids a ranking produced (candidates, neighbours,
page). ``__in`` writes one literal per id, and Django and psycopg prepare, adapt and quote each one:
measured on search_memory at 100k memories, ~1,200 ids a call and several milliseconds of CPU. One
array is one parameter. Registered on every field (``memory.apps``); foreign keys cast to their
target's type.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Field, ForeignObject, Lookup


class AnyOf(Lookup[Any]):
    lookup_name = "any"
    prepare_rhs = False

    def get_db_prep_lookup(self, value: Any, connection: Any) -> Any:
        return "%s", ([str(v) for v in value],)

    def as_sql(self, compiler: Any, connection: Any) -> Any:
        lhs, lhs_params = self.process_lhs(compiler, connection)
        rhs, rhs_params = self.process_rhs(compiler, connection)
        db_type = self.lhs.output_field.db_type(connection)
        return f"{lhs} = ANY({rhs}::{db_type}[])", (*lhs_params, *rhs_params)


def register() -> None:
    Field.register_lookup(AnyOf)
    ForeignObject.register_lookup(AnyOf)  # relations read their own lookups only
