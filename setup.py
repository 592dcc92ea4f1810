"""Builds the engine's C encoder (bpe_core/engine/native) as bpe_core.engine._native.

`pip install -r requirements.txt` runs this through its `-e .` line: the
extension is compiled in place, beside the Python engine, by the C compiler
setuptools finds (gcc or clang, with Python's headers); `pip install .` and
`pip wheel .` compile it into the package. The package itself (its name,
modules, data and requirements) is described in pyproject.toml. Without the
extension the engine still works, in pure Python and slower (see
bpe_core/engine/c_encoder.py).
"""

import os

from setuptools import Extension, setup

NATIVE = "bpe_core/engine/native"

setup(
    ext_modules=[
        Extension(
            "bpe_core.engine._native",
            sources=[f"{NATIVE}/module.c", f"{NATIVE}/bpe.c", f"{NATIVE}/split.c"],
            depends=[f"{NATIVE}/bpe.h", f"{NATIVE}/split.h", f"{NATIVE}/unicode_classes.h"],
            extra_compile_args=["-O3"] if os.name == "posix" else [],
        )
    ],
)
