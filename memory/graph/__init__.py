"""The graph language of query_memory_graph: a Cypher subset over events, entities and tags.

    text --parser--> AST --validator--> Plan --executor (store: batched SQL per hop)--> Answer

Everything the engine reads comes from the caller's visible memories (the queryset it is given)
and the entities and tags linked to them. A query outside the subset is a ``Rejection``.
"""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError, transaction
from django.db.models import QuerySet

from core.dbrouting import read_connection
from memory.graph.errors import Rejection
from memory.graph.executor import Answer, execute
from memory.graph.parser import parse_query
from memory.graph.store import GraphStore
from memory.graph.validator import validate
from memory.models import Memory

__all__ = ["STATEMENT_TIMEOUT_MS", "Answer", "GraphTimeout", "Rejection", "graph_query"]

STATEMENT_TIMEOUT_MS = 15_000


class GraphTimeout(Exception):
    """One of the walk's statements ran past ``STATEMENT_TIMEOUT_MS``."""


class _Done(Exception):
    """Leaves the savepoint by rolling it back: the timeout and the index settings revert."""


def graph_query(*, visible: QuerySet[Memory], query: str, params: dict[str, Any]) -> Answer:
    """Run ``query`` over ``visible``; raises ``Rejection`` when the query is refused."""
    plan = validate(parse_query(query), params)
    answer: Answer | None = None
    reads = read_connection()  # the call's replica, when its door chose one (core/dbrouting.py)
    try:
        with transaction.atomic(using=reads.alias), reads.cursor() as cursor:
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [str(STATEMENT_TIMEOUT_MS)])
            answer = execute(plan, GraphStore(visible))
            raise _Done
    except _Done:
        pass
    except DatabaseError as exc:
        if getattr(exc.__cause__, "sqlstate", "") == "57014":
            raise GraphTimeout(f"the walk ran past {STATEMENT_TIMEOUT_MS} ms and was stopped") from exc
        raise
    assert answer is not None
    return answer
