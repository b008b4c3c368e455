"""A hot ORM read compiled once per thread: ``CompiledQuery``.

Django compiles a queryset's SQL anew every time it is evaluated. For the key every door loads with
its member, user, project, team, workspace, enterprise and plan (six joins), the compilation took
0.9 of the read's 1.7 ms of CPU, on every call of every tool. A ``CompiledQuery`` builds its queryset
once per thread with placeholder values, keeps the SQL and the compiler Django made for it, and on
each run binds the real values and turns the rows into model instances exactly as Django's
``ModelIterable`` does (the compiler's converters, ``Model.from_db``, the ``select_related``
populators), so the objects are the ones the queryset itself would give.

The queryset is built without a manager's tenant filter: put the tenant condition in it explicitly
(``enterprise_id=...``) as one of the placeholders. Row-level security applies as to any statement.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.db import connections, models
from django.db.models.query import get_related_populators

M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: dict[str, int]
    compiler: Any
    model: type[models.Model]
    init_list: list[str]
    start: int
    end: int
    populators: list[Any]
    db: str


class CompiledQuery(Generic[M]):
    """``build(**placeholders)`` returns the queryset; ``all(**values)`` runs it with ``values``.

    Each placeholder value must appear exactly once among the compiled statement's parameters (use
    distinct sentinels, e.g. ``uuid.UUID(int=1)``), so that its position can be rebound.
    """

    def __init__(self, build: Callable[..., models.QuerySet[M]], **placeholders: Any) -> None:
        self._build = build
        self._placeholders = placeholders
        self._local = threading.local()

    def _compiled(self) -> _Compiled:
        compiled: _Compiled | None = getattr(self._local, "compiled", None)
        if compiled is None:
            compiled = self._compile()
            self._local.compiled = compiled
        return compiled

    def _compile(self) -> _Compiled:
        queryset = self._build(**self._placeholders)
        compiler = queryset.query.get_compiler(using=queryset.db)
        sql, params = compiler.as_sql()
        slots = {}
        for name, value in self._placeholders.items():
            positions = [i for i, param in enumerate(params) if param == value]
            if len(positions) != 1:
                raise ImproperlyConfigured(
                    f"placeholder {name}={value!r} appears {len(positions)} times among the parameters"
                )
            slots[name] = positions[0]
        klass_info, select = compiler.klass_info, compiler.select
        fields = klass_info["select_fields"]
        start, end = fields[0], fields[-1] + 1
        return _Compiled(
            sql=sql,
            params=tuple(params),
            slots=slots,
            compiler=compiler,
            model=klass_info["model"],
            init_list=[column[0].target.attname for column in select[start:end]],
            start=start,
            end=end,
            # Django 5.2 takes three arguments (django-stubs describes a later release).
            populators=get_related_populators(klass_info, select, queryset.db),  # type: ignore[call-arg]
            db=queryset.db,
        )

    def all(self, **values: Any) -> list[M]:
        compiled = self._compiled()
        if set(values) != set(compiled.slots):
            raise TypeError(f"expected values for {sorted(compiled.slots)}, got {sorted(values)}")
        params = list(compiled.params)
        for name, value in values.items():
            params[compiled.slots[name]] = value
        with connections[compiled.db].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        objects = []
        for row in compiled.compiler.results_iter([rows]):
            obj = compiled.model.from_db(compiled.db, compiled.init_list, row[compiled.start : compiled.end])
            for populator in compiled.populators:
                populator.populate(row, obj)
            objects.append(obj)
        return objects  # type: ignore[return-value]

    def first(self, **values: Any) -> M | None:
        found = self.all(**values)
        return found[0] if found else None
