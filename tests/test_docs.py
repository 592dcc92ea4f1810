"""The README and docs/ as a newcomer reads them: short enough to read, and
every link between them and to the code leads somewhere."""

import re

from tests.conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")  # [text](target)


def test_the_readme_is_read_in_five_minutes():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_every_relative_link_in_the_readme_and_docs_leads_to_a_file():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):  # a web address, or a heading of the page
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_every_docs_page_is_linked_from_the_readme_or_the_docs_index():
    linked = {target.split("#")[0] for page in (ROOT / "README.md", ROOT / "docs" / "README.md")
              for target in LINK.findall(page.read_text(encoding="utf-8"))}
    names = {target.removeprefix("docs/") for target in linked}
    assert [page.name for page in PAGES[1:] if page.name not in names and page.name != "README.md"] == []
