"""Memory tools, one module per dialect; importing this package registers them all."""

from memory.tools import remember, save, train, update  # noqa: F401
