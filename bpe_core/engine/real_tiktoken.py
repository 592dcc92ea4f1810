"""tiktoken's own `Encoding`, found even where bpe_core stands in for tiktoken.

The engine encodes in C (`c_encoder`), but tiktoken's `Encoding` still
computes `encode_with_unstable` (tiktoken's own algorithm, see `tokenizer`),
and it is what `formats.to_tiktoken` and `vocabularies.openai.tiktoken_encoding`
hand out. Training never needs it, and importing tiktoken costs the command
line a tenth of its memory at 1 MB, so `TiktokenEncoding` is imported when
first asked for (this module's `__getattr__`, PEP 562): a module that needs
it reads `real_tiktoken.TiktokenEncoding` where it builds one.

By then the name `tiktoken` may be bpe_core's: bpe_core can stand in for
tiktoken (`bpe_core.stand_in_for_tiktoken()`, or `sys.modules["tiktoken"] =
bpe_core`), and from then on `import tiktoken` gives bpe_core itself. So the
real package is imported as if nothing stood in: the stand-ins leave
`sys.modules` for that one import, and come back after it in place of the
real modules it loaded. It cannot be loaded under a name of its own instead:
its modules import one another by the name `tiktoken` (`core.py` does
`from tiktoken import _tiktoken`). A module in `sys.modules` under a
`tiktoken` name is tiktoken's own if that is its own name too; a stand-in
has another (`bpe_core`, `bpe_core.tiktoken_bridge.core`).
`stand_in_for_tiktoken()` takes the real one before it stands in.
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType

_found: list[ModuleType] = []  # the real `tiktoken.core`, once imported
_finding = threading.Lock()  # two threads asking at once import it once


def __getattr__(name: str):
    if name != "TiktokenEncoding":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    encoding = real_tiktoken_core().Encoding
    globals()[name] = encoding  # found directly from now on
    return encoding


def real_tiktoken_core() -> ModuleType:
    """tiktoken's own `tiktoken.core`, imported now if it was not yet,
    whatever stands in for tiktoken (see the module's note)."""
    with _finding:
        if not _found:
            _found.append(_import_real_tiktoken_core())
        return _found[0]


def _import_real_tiktoken_core() -> ModuleType:
    core = sys.modules.get("tiktoken.core")
    if core is not None and core.__name__ == "tiktoken.core":  # imported before anything stood in
        return core
    tiktoken_modules = {name: module for name, module in sys.modules.items() if _is_tiktoken_name(name)}
    if all(module is None or module.__name__ == name for name, module in tiktoken_modules.items()):
        return importlib.import_module("tiktoken.core")  # nothing stands in
    for name in tiktoken_modules:
        del sys.modules[name]
    try:
        return importlib.import_module("tiktoken.core")
    finally:
        for name in [name for name in sys.modules if _is_tiktoken_name(name)]:
            del sys.modules[name]
        sys.modules.update(tiktoken_modules)


def _is_tiktoken_name(name: str) -> bool:
    return name == "tiktoken" or name.startswith("tiktoken.")
