"""Builds the C half of training, bpe_core.engine._native_training, when pip
installs this project (`pip install -r requirements.txt` holds `-e .`).

It is optional: where no C compiler is at hand the build is skipped with a
warning and bpe_core runs its Python engine, the same merges more slowly
(CI sets REQUIRE_NATIVE=1, so that a missing module fails a test there).
"""

from setuptools import Extension, setup

NATIVE = "bpe_core/engine/native/"

setup(
    name="bpe-playground",
    version="0",
    packages=[],  # run from this folder: pip builds the extension in place, nothing else is installed
    ext_modules=[
        Extension(
            "bpe_core.engine._native_training",
            sources=[NATIVE + name for name in ("training_module.c", "learn.c", "count.c", "split.c")],
            depends=[NATIVE + name for name in ("native.h", "split.h", "unicode_classes.h", "unsettled.h")],
            extra_compile_args=["-O2", "-std=c11", "-Wall", "-Wextra"],
            optional=True,
        )
    ],
)
