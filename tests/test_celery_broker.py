"""config/celery.py's broker: with no CELERY_BROKER_URL, kombu's filesystem transport polling often enough
to keep up, and writing each message whole (issue 18; core/broker.py). Nothing here is timed:
bench/broker/ measures the pace (bench/RESULTS.md)."""

from __future__ import annotations

from queue import Empty

import pytest
from kombu import Connection
from kombu.transport.virtual import Transport

from config.celery import _broker_options
from core import broker

# kombu's own default: the worker sleeps this long whenever it may take nothing, which with acks_late
# and a prefetch of one is after every job; it held the embedded broker to about a job a second.
KOMBU_DEFAULT_POLL_SECONDS = Transport.polling_interval


@pytest.fixture
def embedded(settings, tmp_path):
    settings.CELERY_BROKER_URL = ""
    settings.BROKER_DIR = tmp_path / "broker"
    return _broker_options()


def _connection(options, url: str | None = None) -> Connection:
    """What the worker and the web server connect with (building it opens nothing)."""
    return Connection(url or options["broker_url"], transport_options=options["broker_transport_options"])


def test_the_filesystem_broker_polls_well_below_kombus_default(embedded, settings, tmp_path):
    assert embedded["broker_url"] == "mnemosfs://localhost//"
    assert embedded["broker_transport_options"]["polling_interval"] == settings.BROKER_POLL_SECONDS
    transport = _connection(embedded).transport
    assert isinstance(transport, broker.Transport)
    assert transport.polling_interval == settings.BROKER_POLL_SECONDS
    assert KOMBU_DEFAULT_POLL_SECONDS == 1.0
    assert transport.polling_interval <= 0.05, "bench/RESULTS.md (issue 18): 1 s polls run ~1 job/s"
    for folder in ("queue", "processed", "control"):
        assert (tmp_path / "broker" / folder).is_dir()


def test_a_broker_url_takes_the_place_of_the_filesystem(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    assert _broker_options() == {"broker_url": "redis://127.0.0.1:6379/0"}


def test_kombus_filesystem_transport_stops_on_a_message_still_being_written(embedded, tmp_path):
    """Why core/broker.py exists: kombu's _put creates the file, then writes it; a read in between
    takes the empty file and fails (the worker's "Unrecoverable error", kombu issue #1551)."""
    stock = _connection(embedded, "filesystem://localhost//").channel()
    assert not isinstance(stock, broker.Channel)
    (tmp_path / "broker" / "queue" / "1_00000000-0000-0000-0000-000000000000.jobs.msg").write_bytes(b"")
    with pytest.raises(ValueError, match="Expecting value"):
        stock._get("jobs")


def test_the_embedded_broker_shows_a_message_only_once_it_is_whole(embedded, tmp_path):
    channel = _connection(embedded).channel()
    assert isinstance(channel, broker.Channel)
    queue_folder = tmp_path / "broker" / "queue"
    # A message still being written (its name while _put writes it): the readers skip it.
    (queue_folder / ".1_00000000-0000-0000-0000-000000000000.jobs.msg.part").write_bytes(b"")
    assert channel._size("jobs") == 0
    with pytest.raises(Empty):
        channel._get("jobs")
    channel._put("jobs", {"body": "one"})
    channel._put("jobs", {"body": "two"})
    assert channel._size("jobs") == 2
    names = [p.name for p in queue_folder.iterdir()]
    assert sum(name.endswith(".part") for name in names) == 1  # the placed one: _put leaves none
    assert {channel._get("jobs")["body"], channel._get("jobs")["body"]} == {"one", "two"}
