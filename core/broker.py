"""kombu's filesystem transport (the embedded broker, config/celery.py), with each message whole before
a worker can see it.

kombu's ``_put`` creates the message file under its final name, then writes it. A worker listing the
folder in between moves the empty file away, cannot decode it and stops ("Unrecoverable error:
JSONDecodeError('Expecting value: line 1 column 1 (char 0)')", kombu issue #1551); ``manage.py serve``
then stops with it. The faster the worker polls, the likelier: bench/broker/ hit it at a 10 ms poll
(bench/RESULTS.md, issue 18). Here the message is written under a name the readers skip (kombu's
``_get``, ``_size`` and ``_purge`` take only ``<stamp>_<uuid>.<queue>.msg``) and renamed into place,
which within one folder is atomic.

It is chosen by the broker URL's scheme (``mnemosfs://``, registered with kombu here), not by Celery's
``broker_transport``, which would outrank any other URL set later (a test's, ``celery -b``).
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


class Channel(filesystem.Channel):
    # kombu's two ancestors name the second argument differently (message, payload); it is passed by position.
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A leading dot: partition(".")[2] is then the whole name plus ".part", never "<queue>.msg".
        partial = os.path.join(self.data_folder_out, f".{name}.part")
        try:
            with open(partial, "wb", buffering=0) as f:
                f.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel


SCHEME = "mnemosfs"
TRANSPORT_ALIASES.setdefault(SCHEME, f"{__name__}:Transport")
