"""Entity lookups: by id or any spelling of a name, and the renames recorded between entities."""

from __future__ import annotations

from django.db.models import F, Q, Value
from django.db.models.functions import Length

from memory.models import Entity, EntityRename
from memory.text import fold

# How many similar names a lookup that found nothing offers instead.
CANDIDATES = 5
# How many look-alikes a newly created entity suggests, and the shortest folded name that looks alike.
LOOKALIKES = 3
LOOKALIKE_MIN = 4


def entity_by_ref(ref: str | int) -> Entity | None:
    """An entity named by its id (digits) or by a name in any spelling (``fold``): the id wins."""
    text = str(ref).strip()
    if text.isdigit():
        found = Entity.objects.filter(pk=int(text)).first()
        if found is not None:
            return found
    return Entity.objects.filter(key=fold(text)).first()


def entity_get(*, entity_id: int) -> Entity | None:
    return Entity.objects.filter(pk=entity_id).first()


def entity_named(*, name: str) -> Entity | None:
    """The entity this name is a spelling of (letter case and character width aside)."""
    return Entity.objects.filter(key=fold(name)).first()


def entity_candidates(*, name: str) -> list[Entity]:
    """Entities whose folded name contains this one's (none for a name under two characters)."""
    key = fold(name)
    return list(Entity.objects.filter(key__contains=key)[:CANDIDATES]) if len(key) >= 2 else []


def entity_lookalikes(*, entity: Entity, limit: int = LOOKALIKES) -> list[Entity]:
    """Up to ``limit`` other entities, by name, whose folded name contains this one's or is contained in it
    (4 characters or more each side); none for a name that folds under 4 characters."""
    key = fold(entity.name)
    if len(key) < LOOKALIKE_MIN:
        return []
    return list(
        Entity.objects.annotate(probe=Value(key), size=Length("key"))
        .filter(Q(key__contains=key) | Q(probe__contains=F("key"), size__gte=LOOKALIKE_MIN))
        .exclude(pk=entity.pk)
        .order_by("name")[:limit]
    )


def entity_family(entities: list[Entity]) -> list[Entity]:
    """The entities and everything recorded as a rename of them, both ways."""
    family = {e.pk: e for e in entities}
    frontier = list(family)
    while frontier:
        renames = EntityRename.objects.filter(Q(old_id__in=frontier) | Q(new_id__in=frontier)).select_related(
            "old", "new"
        )
        frontier = []
        for rename in renames:
            for entity in (rename.old, rename.new):
                if entity.pk not in family:
                    family[entity.pk] = entity
                    frontier.append(entity.pk)
    return list(family.values())
