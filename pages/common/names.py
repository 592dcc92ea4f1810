"""The names pages share, in one place: every page's file, title and
address, and the session keys one page sets for another.

A page's address is its file name (Home's is "/"). That is what Streamlit's
older multipage mode calls it too, so a link opened before app.py has run
once in the server finds the same page either way (see `navigation`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class PageInfo:
    file: str  # relative to app.py
    title: str
    icon: str
    description: str  # one line, for Home's list of pages

    @property
    def url_path(self) -> str:
        """The page's address: its file name, and "" for Home."""
        return "" if self is HOME else Path(self.file).stem


HOME = PageInfo("pages/home.py", "Home", "🧩", "type anything and see it as tokens")
TRAIN = PageInfo("pages/train.py", "Train", "🏋️", "step through BPE training merge by merge, on a sample or your own text")
INSPECT = PageInfo("pages/inspect.py", "Inspect", "🔍", "colour token boundaries of any text, with ids, bytes and counts")
COMPRESSION = PageInfo("pages/compression.py", "Compression", "📉", "how bytes per token grow with the vocabulary, per corpus")
COMPARE = PageInfo("pages/compare.py", "Compare", "⚖️", "one text through several tokenizers, side by side")
ALGORITHMS = PageInfo(  # was "Three algorithms" (BPE, WordPiece, Unigram), at the same address
    "pages/algorithms.py", "Algorithms", "🧪",
    "BPE, SuperBPE, BoundlessBPE, Picky BPE, WordPiece and Unigram trained on the same text: steps, compression, "
    "superwords, removals, 30 languages",
)
CHAT = PageInfo(
    "pages/chat.py", "Chat prompts", "💬",
    "a conversation as each model family's prompt: role headers, special tokens and what each turn costs",
)
TAX = PageInfo("pages/tax.py", "Tokenization tax", "🌍", "what the same content costs in tokens in 30 languages, and why")
REPLAY = PageInfo(
    "pages/replay.py", "Encode replay", "🎬", "watch the merges build a word's tokens one by one, and any token's merge tree"
)
QUIRKS = PageInfo("pages/quirks.py", "Quirks", "🍓", "ready examples of why tokenization matters, one click into Inspect or Compare")
VOCABULARY = PageInfo(
    "pages/vocabulary.py", "Vocabulary", "📖", "browse and search every token: by text, regex, id, script and the step it was learned"
)
DECK = PageInfo("pages/deck.py", "Deck", "🎞️", "a talk's states in order, walked with a clicker, with a speaker view")

PAGES = [HOME, TRAIN, INSPECT, COMPRESSION, COMPARE, ALGORITHMS, CHAT, TAX, REPLAY, QUIRKS, VOCABULARY, DECK]

# Session keys (and link parameters) that more than one page reads or sets.
SHARED_TEXT = "shared_text"  # the text of the box Home, Inspect and Compare share ...
SHARED_TEXT_BOX = "shared_text_box"  # ... the box itself ...
TYPED_LAST = "shared_text_typed"  # ... what it had sent when last read ...
TEXT_PARAM = "text"  # ... and the text's link parameter
TRAINED = "trained"  # the Train page's result; in a link, the recipe that rebuilds it
LOADED_TOKENIZERS = "loaded_tokenizers"  # tokenizers this session loaded from files
PRESENT = "present"  # presenter mode, also ?present=true
INSPECT_TOKENIZER = "inspect_tokenizer"  # Inspect's picker (Quirks opens examples there)
COMPARE_TOKENIZERS = "compare_tokenizers"  # Compare's picker (likewise)
