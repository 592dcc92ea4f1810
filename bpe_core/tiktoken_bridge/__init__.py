"""bpe_core and tiktoken, each standing in for the other.

- bpe_core as tiktoken, for code written for tiktoken: after
  `bpe_core.stand_in_for_tiktoken()` (`stand_in`), `import tiktoken` gives
  bpe_core, and `tiktoken.core`, `tiktoken.model`, `tiktoken.load` and
  `tiktoken.registry` give this floor's modules of those names: tiktoken's
  public modules over this engine, offline (`load` reads OpenAI's files
  from this package, never from their URLs);
- the real tiktoken with this package's tokenizers and files: a plugin by
  which tiktoken finds the zoo's byte-level BPE and a user's trained
  tokenizers (`plugin`, installed as `tiktoken_ext.bpe_core`), and
  tiktoken's download cache filled from the bundled files (`cache`, from
  `blobs`), so that the real tiktoken works offline too.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

from ..engine import real_tiktoken

TIKTOKEN_MODULES = ("core", "load", "model", "registry")  # tiktoken's public submodules


def stand_in(package: ModuleType) -> None:
    """Make `package` (bpe_core) what every later `import tiktoken` gives,
    and this floor's modules its submodules (`import tiktoken.model` asks
    `sys.modules`, not the package's attributes). Code that imported
    tiktoken before keeps the real one. The real `Encoding`, which this
    package still builds (see `engine.real_tiktoken`), is taken first."""
    real_tiktoken.real_tiktoken_core()
    sys.modules["tiktoken"] = package
    for name in TIKTOKEN_MODULES:
        sys.modules[f"tiktoken.{name}"] = importlib.import_module(f"{__name__}.{name}")
