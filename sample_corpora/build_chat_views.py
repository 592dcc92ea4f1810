"""Rebuild `chat_views.json`: the Chat prompts page's default conversation
as the prompts of its two default families, as the page draws them, so
that a first visit loads no tokenizer.

    python sample_corpora/build_chat_views.py

See `pages.common.chat_views` for how the page uses the file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bpe_core import load_encoding  # noqa: E402
from bpe_core.vocabularies.catalogue import chat_prompt  # noqa: E402
from pages.common.chat_views import (  # noqa: E402
    DEFAULT_CONVERSATION,
    DEFAULT_FAMILIES,
    prompt_view,
    view_key,
    write_shipped,
)


def default_views() -> dict:
    """Each default family's view of the default conversation, by its key."""
    views = {}
    for name in DEFAULT_FAMILIES:
        tokenizer = load_encoding(name)
        views[view_key(name, DEFAULT_CONVERSATION)] = prompt_view(chat_prompt(DEFAULT_CONVERSATION, name, tokenizer),
                                                                  tokenizer)
    return views


def main() -> None:
    write_shipped(default_views())


if __name__ == "__main__":
    main()
