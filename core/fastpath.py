"""The one seam for hand-rolled query paths: what stays because a paired benchmark showed it pays.

Everything else reads through Django's public API. A path stays here only while it is measured paired
to pay at least 5 ms at p95 (bench/RESULTS.md, issue 17), and ``tests/test_fastpath.py`` compares each
one's results with the plain ORM's and fails on a Django other than the one these were verified on
(``VERIFIED_DJANGO``), so an upgrade re-checks them instead of breaking them silently.

- ``CompiledQuery``: a hot ORM read compiled once per thread. Django compiles a queryset's SQL anew
  every time it is evaluated; for the key every door loads with its member, user, project, team,
  workspace, enterprise, plan and run (seven joins) the compilation is most of the read's CPU, on
  every call of every tool. A ``CompiledQuery`` builds its queryset once per thread with placeholder
  values, keeps the SQL and the compiler Django made for it, and on each run binds the real values and
  turns the rows into model instances as Django's ``ModelIterable`` does (the compiler's converters,
  ``Model.from_db``, the ``select_related`` populators). Internals it relies on: ``compiler.as_sql``,
  ``klass_info``, ``select``, ``results_iter`` and ``get_related_populators``.
- ``tenant_queryset``: each (model, database, enterprise)'s filtered queryset built once per thread
  and handed out as a clone (``.all()``): ``filter()`` resolved the field and built its lookup anew
  each time, a dozen times a save.

Together they took 5.4 ms of web CPU a save and 52 ms off the save p95 at 8 clients, paired.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.core.exceptions import ImproperlyConfigured
from django.db import connections, models
from django.db.models.query import get_related_populators

# The Django these paths were verified against (tests/test_fastpath.py fails on any other).
VERIFIED_DJANGO = (5, 2)

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


# -- the tenant manager's filtered querysets ---------------------------------------------------------

_tenant_querysets = threading.local()
_TENANT_QUERYSETS_MAX = 512


def tenant_queryset(
    queryset_class: type[models.QuerySet[Any]], model: type[M], db: str | None, field: str, enterprise_id: Any
) -> models.QuerySet[M]:
    """``queryset_class(model).filter(<field>=enterprise_id)``, built once per thread, handed out as a
    clone (the template itself is never evaluated nor handed out)."""
    built: dict[tuple[Any, ...], models.QuerySet[Any]] | None = getattr(_tenant_querysets, "built", None)
    if built is None:
        built = _tenant_querysets.built = {}
    key = (model, db, enterprise_id)
    template = built.get(key)
    if template is None:
        if len(built) >= _TENANT_QUERYSETS_MAX:
            built.clear()
        template = queryset_class(model, using=db).filter(**{field: enterprise_id})
        built[key] = template
    return template.all()
