"""Builds the engine's C half (bpe_core/engine/native) in place: the encoder,
bpe_core.engine._native, training's counting and merge learning,
bpe_core.engine._native_training, and the research algorithms' training
loops, bpe_core.algorithms._native_research.

`pip install -r requirements.txt` runs this through its `-e .` line, and
`pip install .` and `pip wheel .` compile them into the package, with the C
compiler setuptools finds (gcc or clang, with Python's headers). The package
itself (its name, modules, data and requirements) is described in
pyproject.toml. All are optional: where no compiler is at hand the
build is skipped with a warning and the engine runs in Python, the same ids
and merges, more slowly (see bpe_core/engine/c_encoder.py,
native_training.py and bpe_core/algorithms/native_research.py). CI sets
REQUIRE_NATIVE=1, so that a module missing there fails a test.
"""

import os

from setuptools import Extension, setup

NATIVE = "bpe_core/engine/native"
OPTIMIZE = ["-O3"] if os.name == "posix" else []
# learn.c's functions and siphash.c's key are shared by the files of an extension (learn.h, siphash.h), not with
# other libraries: each extension has its own key.
HIDDEN = ["-fvisibility=hidden"] if os.name == "posix" else []

setup(
    ext_modules=[
        Extension(
            "bpe_core.engine._native",
            sources=[f"{NATIVE}/{name}" for name in ("module.c", "bpe.c", "split.c", "siphash.c")],
            depends=[f"{NATIVE}/{name}" for name in ("bpe.h", "split.h", "unicode_classes.h", "siphash.h")],
            extra_compile_args=[*OPTIMIZE, *HIDDEN],
            optional=True,
        ),
        Extension(
            "bpe_core.engine._native_training",
            sources=[f"{NATIVE}/{name}" for name in ("training_module.c", "learn.c", "count.c", "split.c", "siphash.c")],
            depends=[f"{NATIVE}/{name}" for name in ("native.h", "learn.h", "split.h", "unicode_classes.h", "unsettled.h",
                                                     "characters.h", "siphash.h")],
            extra_compile_args=[*OPTIMIZE, *HIDDEN, "-std=c11"],
            optional=True,
        ),
        Extension(  # the research algorithms' loops, on learn.c's merge state (learn.h)
            "bpe_core.algorithms._native_research",
            sources=[f"{NATIVE}/{name}" for name in ("research.c", "learn.c", "bpe.c", "split.c", "siphash.c")],
            depends=[f"{NATIVE}/{name}" for name in ("learn.h", "native.h", "bpe.h", "split.h", "unicode_classes.h",
                                                     "unsettled.h", "characters.h", "siphash.h")],
            extra_compile_args=[*OPTIMIZE, *HIDDEN, "-std=c11"],
            optional=True,
        ),
    ],
)
