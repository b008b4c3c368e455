"""The Mnemos clients: ``Client`` (sync) and ``AsyncClient``, one typed method per API operation."""

from __future__ import annotations

from mnemos_client._generated import AsyncOperations, SyncOperations


class Client(SyncOperations):
    """Mnemos's REST API over ``httpx.Client``.

    ``Client("https://mnemos.example.com", "mnm_...")``; ``retry=RetryPolicy(...)`` to change the
    retries, ``timeout`` seconds per attempt, ``headers`` sent with every call, ``transport`` an
    ``httpx`` transport of your own. Use it as a context manager, or call ``close()``.
    """


class AsyncClient(AsyncOperations):
    """Mnemos's REST API over ``httpx.AsyncClient``: the same methods as ``Client``, awaited."""
