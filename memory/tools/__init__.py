"""Memory tools, one module per dialect; importing this package registers them all."""

from memory.tools import ask, batch, graph, read, remember, save, sql, train, update  # noqa: F401
