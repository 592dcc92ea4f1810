"""A talk deck: the states of a talk, in order, as a small text a speaker
writes, keeps in a file and carries in a link.

One slide a line: a link, then optionally its title and a note for the
speaker, separated by " | ". Lines starting with "#" and blank lines are
left out.

    /train?train_step=0&present=true | Bytes first | Every byte is a token.
    http://localhost:8501/train?train_step=40 | 40 merges in
    replay.html?replay_step=3 | Replay, from a saved page

A slide is one of this app's permalinks (a whole address, whose host is
dropped so that a deck made at home plays on any server, or a path such as
"/train?..."), or a page saved as HTML (a file name ending in .html, found
beside the deck's own file). Nothing else may be a slide: a deck is shown in
frames, and a link such as "javascript:" must never run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

MAX_DECK_CHARS = 8_000  # a talk of dozens of slides; a link still carries it
MAX_SLIDES = 200
_SAVED_PAGE = re.compile(r"[\w][\w .\-/]*\.html?(\?[^#\s]*)?(#\S*)?", re.ASCII)
# What a browser reads otherwise than urllib: it drops tabs and line breaks
# anywhere in a link ("/\t/evil.com" is "//evil.com", another site) and
# reads a backslash in a path as a slash ("/\\evil.com" is "//evil.com" too).
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_OFF_SITE_PATH = re.compile(r"[/\\]{2}|\\")  # "//host" leaves the server; a backslash may become a slash


@dataclass(frozen=True)
class Slide:
    link: str  # an app path with its query ("/train?train_step=40"), or a saved page ("train.html?train_step=4")
    title: str = ""
    note: str = ""

    @property
    def saved_page(self) -> bool:
        """Whether the slide is a page saved as HTML (not the app's)."""
        return not self.link.startswith("/")

    def line(self) -> str:
        return " | ".join([self.link, self.title, self.note]).rstrip(" |")


def parse_deck(text: str) -> list[Slide]:
    """The slides of a deck's text, or ValueError naming the first bad line."""
    if len(text) > MAX_DECK_CHARS:
        raise ValueError(f"the deck has {len(text):,} characters; a deck is up to {MAX_DECK_CHARS:,}")
    slides = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        link, title, note = [*(part.strip() for part in line.split("|", 2)), "", ""][:3]
        try:
            slides.append(Slide(slide_link(link), title, note))
        except ValueError as error:
            raise ValueError(f"line {number}: {error}") from None
    if not slides:
        raise ValueError("the deck has no slides: write one link a line (then, optionally, | title | note)")
    if len(slides) > MAX_SLIDES:
        raise ValueError(f"the deck has {len(slides):,} slides; a deck holds up to {MAX_SLIDES}")
    return slides


def slide_link(link: str) -> str:
    """A link as a slide: an app address as its path and query (and
    fragment), a saved page's file name as it is; else ValueError."""
    parts = urlsplit(link)
    if _CONTROL.search(link):
        path = None
    elif parts.scheme in ("http", "https") and parts.netloc:
        path = urlunsplit(("", "", parts.path or "/", parts.query, parts.fragment))
    elif link.startswith("/") and not parts.scheme:
        path = link
    elif _SAVED_PAGE.fullmatch(link) and ".." not in link.split("?")[0]:
        return link
    else:
        path = None
    if path is None or _OFF_SITE_PATH.search(re.split(r"[?#]", path, maxsplit=1)[0]):  # a query may hold anything
        raise ValueError(f"{link!r} is not a link of this app (http://…/train?…, or /train?…) "
                         "nor a saved page's file name (train.html)")
    return path


def deck_text(slides: list[Slide]) -> str:
    """The deck as its text again: one slide a line."""
    return "\n".join(slide.line() for slide in slides) + "\n"
