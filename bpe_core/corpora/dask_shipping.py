"""This package, sent by the client to a Dask cluster: workers that need nothing but Dask.

A worker runs this package's counting code, and the scheduler unpickles
the tasks too, so both must import bpe_core and its `regex` (the split;
counting needs nothing else, and importing bpe_core does not load tiktoken,
see `engine.real_tiktoken`). Nobody copies a checkout onto every node of a
real cluster, so the client sends them, with the plugins behind Dask's own
`Client.upload_file` (`UploadFile` for the workers, `SchedulerUploadFile`
for the scheduler), registered on the cluster so that workers which join
later receive them as well:

1. a zip of bpe_core's modules (counting needs neither its data files nor
   its C half: a worker counts with `regex`, see `dask_counting.count_block`) and
   of `regex` as this machine has it installed, its compiled part built for
   its Python and platform;
2. a small module that each node imports as it arrives (`upload_file`
   imports what it receives), which unpacks the zip beside itself and puts
   it first on the node's path: a compiled module cannot be imported from
   inside a zip.

A node with another platform than this machine's (Linux beside macOS, ARM
beside x86) cannot load that compiled part: it takes bpe_core's modules
only, and must have regex installed itself
(`dask_counting.check_workers` says so). Both uploads are named by what
they hold, so a cluster that already has this package does not take it again.
"""

from __future__ import annotations

import functools
import hashlib
import io
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import distributed
import regex
from distributed.diagnostics.plugin import SchedulerUploadFile, UploadFile

PACKAGE = Path(__file__).resolve().parents[1]  # bpe_core
COMPILED_FOR = sysconfig.get_config_var("EXT_SUFFIX")  # ".cpython-311-x86_64-linux-gnu.so": Python, platform
REGEX_FOLDER = Path(regex.__file__).parent  # where regex is installed here

# What each node runs as the upload arrives. It runs twice (upload_file
# imports the module, then reloads it), so doing it again changes nothing.
_UNPACK = '''\
"""Sent by bpe_core's client: unpacks {name}.zip beside this file and puts it first on sys.path."""
import os, pathlib, sys, sysconfig, zipfile

here = pathlib.Path(__file__).with_name("{name}")
if not here.is_dir():
    partial = here.with_name(f"{{here.name}}.{{os.getpid()}}.partial")
    with zipfile.ZipFile(here.with_name("{name}.zip")) as archive:
        archive.extractall(partial)
    partial.rename(here)
parts = ["code", "packages"] if sysconfig.get_config_var("EXT_SUFFIX") == "{compiled_for}" else ["code"]
for part in parts:
    if str(here / part) not in sys.path:
        sys.path.insert(0, str(here / part))
'''


def send_this_package(client: distributed.Client) -> None:
    """Give the scheduler and every worker, now and later, this package
    and the packages it imports (see the module's note)."""
    name, archive = _archive()
    with tempfile.TemporaryDirectory() as folder:
        zip_file, unpack_file = Path(folder, f"{name}.zip"), Path(folder, f"{name}.py")
        zip_file.write_bytes(archive)
        unpack_file.write_text(_UNPACK.format(name=name, compiled_for=COMPILED_FOR), encoding="utf-8")
        for path, load in ((zip_file, False), (unpack_file, True)):  # the zip first: the module unpacks it
            for plugin in (SchedulerUploadFile(str(path), load=load), UploadFile(str(path), load=load)):
                plugin.idempotent = True  # registered under this name already: nothing to do
                client.register_plugin(plugin, name=path.name)


def what_other_platforms_need() -> str:
    """What a machine of another platform than this one must install itself."""
    return (f"this machine sends it with regex built for {sysconfig.get_platform()} ({COMPILED_FOR}); "
            f"a machine of another platform needs its own: pip install regex=={regex.__version__}")


@functools.cache
def _archive() -> tuple[str, bytes]:
    """The zip (see the module's note) and its name, which its contents decide:
    `code/bpe_core/...`, then `packages/regex/...`."""
    files = {f"code/bpe_core/{path.relative_to(PACKAGE)}": path for path in sorted(PACKAGE.rglob("*.py"))}
    for path in sorted(REGEX_FOLDER.rglob("*")):
        relative = path.relative_to(REGEX_FOLDER)
        if path.is_file() and not {"__pycache__", "tests"} & set(relative.parts):
            files[f"packages/regex/{relative}"] = path
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, path in files.items():
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))  # the same files make the same zip
            entry.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(entry, path.read_bytes())
    contents = buffer.getvalue()
    return f"bpe_core_{hashlib.sha256(contents).hexdigest()[:16]}", contents
