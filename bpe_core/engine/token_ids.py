"""Token ids as people type them, read strictly.

Decoding starts from ids a person pasted: "15339 1917", "15339, 1917" or a
JSON list. Anything that is not a whole number is refused with an example
of what is expected, rather than guessed at.
"""

from __future__ import annotations

import re

_TOKEN_ID = re.compile(r"-?[0-9]{1,18}")  # ASCII digits only, and no number too long to be an id


def parse_token_ids(text: str) -> list[int]:
    """Token ids as people type them: "15339 1917", "15339, 1917" or a JSON
    list. Anything that is not a whole number is a ValueError."""
    parts = text.replace(",", " ").replace("[", " ").replace("]", " ").split()
    if not all(_TOKEN_ID.fullmatch(part) for part in parts):
        raise ValueError("Token ids must be whole numbers, e.g. 15339 1917 or [15339, 1917].")
    return [int(part) for part in parts]
