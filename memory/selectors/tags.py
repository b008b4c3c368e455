"""Tag reads: the enterprise's tags in tree order, which paths exist, and other paths with the same leaf."""

from __future__ import annotations

from memory.models import Tag

# How many existing paths a new tag's leaf name suggests.
LOOKALIKES = 3


def tags_in_path_order(*, limit: int) -> list[Tag]:
    """The enterprise's first ``limit`` tags by path: a parent comes before its children."""
    return list(Tag.objects.order_by("path")[:limit])


def tag_paths_existing(*, paths: list[str]) -> set[str]:
    """Which of these paths already name a tag (no query for none)."""
    return set(Tag.objects.filter(path__in=paths).values_list("path", flat=True))


def tag_paths_same_leaf(*, path: str, limit: int = LOOKALIKES) -> list[str]:
    """Up to ``limit`` other tags' paths whose last segment is this path's last segment."""
    leaf = path.rsplit("/", 1)[-1]
    return list(Tag.objects.filter(name=leaf).exclude(path=path).values_list("path", flat=True)[:limit])
