"""What an erasure (memory.services.erasure) removes on the partners side of the house.

Partner reads are live through links: a provider's memories are read in its own context at call time and
nothing of them is copied or cached on the consumer's side. What the consumer keeps of its own are aliases
(``PartnerEntityAlias``): a home entity's name beside a partner's spelling. When the consumer erases an
entity, the aliases that name it as the home entity go with it.
"""

from __future__ import annotations

from partners.models import PartnerEntityAlias


def partner_aliases_erase(keys: list[str]) -> int:
    """Delete the current enterprise's aliases whose home entity is one of these folded keys."""
    return int(PartnerEntityAlias.objects.filter(home_key__in=keys).delete()[0])
