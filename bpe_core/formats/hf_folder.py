"""A Hugging Face model folder, however a user brings it.

transformers saves a tokenizer as a folder: tokenizer.json (the tokenizer
itself, which Hugging Face's `tokenizers` runs), tokenizer_config.json (its
named special tokens and, usually, its chat template) and, in newer
versions, chat_template.jinja (the template, which then takes precedence).
A user brings one as

- a folder on the command line (`--tokenizer DIR`);
- a model id ("google/gemma-3-1b-it") found in the local Hugging Face cache
  ($HF_HUB_CACHE, or $HF_HOME/hub, or ~/.cache/huggingface/hub), read with
  `huggingface_hub` offline: nothing is downloaded;
- on a page, where a browser cannot upload a folder: a .zip of it, or its
  files chosen together.

Each gives the same `ModelFolder`: the files' contents, read within limits,
or a `TokenizerFileError` in one sentence (a folder without tokenizer.json
says so).
"""

from __future__ import annotations

import dataclasses
import io
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .reading import MAX_UNPACKED_BYTES, TokenizerFileError, parse_json

TOKENIZER = "tokenizer.json"
CONFIG = "tokenizer_config.json"
TEMPLATE = "chat_template.jinja"
FILES = (TOKENIZER, CONFIG, TEMPLATE)
MAX_CONFIG_BYTES = 5_000_000  # Gemma 3's, which lists 6,415 added tokens, is 1.2 MB
MAX_ZIP_MEMBERS = 10_000  # a model folder holds tens of files; reading 240,000 members' entries took half a minute


@dataclass(frozen=True)
class ModelFolder:
    """What a model folder holds for tokenizing: `name` for pickers,
    tokenizer.json's text, tokenizer_config.json (empty if absent) and the
    chat template (None if it has none)."""

    name: str
    tokenizer_json: str
    config: Mapping = field(default_factory=dict)
    chat_template: str | None = None


def folder_from_files(name: str, files: Mapping[str, bytes]) -> ModelFolder:
    """A folder from its files' contents, by file name (others are ignored)."""
    if TOKENIZER not in files:
        raise TokenizerFileError(f"{name} has no {TOKENIZER}; a Hugging Face model folder keeps its tokenizer there.")
    for file_name, data in files.items():
        limit = MAX_CONFIG_BYTES if file_name != TOKENIZER else MAX_UNPACKED_BYTES
        if file_name in FILES and len(data) > limit:
            raise TokenizerFileError(f"{file_name} is {len(data) / 1e6:,.0f} MB; the limit is {limit // 1_000_000} MB.")
    tokenizer_json = _utf8(files[TOKENIZER], TOKENIZER)
    config = parse_json(files[CONFIG], CONFIG) if CONFIG in files else {}
    if not isinstance(config, dict):
        raise TokenizerFileError(f"{CONFIG} holds a JSON {type(config).__name__}, not an object.")
    template = _utf8(files[TEMPLATE], TEMPLATE) if TEMPLATE in files else config_template(config)
    return ModelFolder(name, tokenizer_json, config, template)


def read_folder(path: Path) -> ModelFolder:
    """A folder on disk."""
    files = {}
    for file_name in FILES:
        try:
            with open(path / file_name, "rb") as file:
                files[file_name] = file.read(MAX_UNPACKED_BYTES + 1)
        except FileNotFoundError:
            continue
        except OSError as error:
            raise TokenizerFileError(f"Cannot read {path / file_name}: {error.strerror or error}.") from None
    return folder_from_files(path.name or str(path), files)


def read_zip(name: str, data: bytes) -> ModelFolder:
    """A .zip of a folder: the files beside its shallowest tokenizer.json
    (a zip of folder "gemma" holds "gemma/tokenizer.json")."""
    members = zip_member_count(data)
    if members is not None and members > MAX_ZIP_MEMBERS:
        raise TokenizerFileError(f"{name} holds {members:,} files; a model folder's .zip holds at most "
                                 f"{MAX_ZIP_MEMBERS:,}.")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        entries = {PurePosixPath(info.filename): info for info in archive.infolist() if not info.is_dir()}
    except (zipfile.BadZipFile, ValueError, OSError) as error:
        raise TokenizerFileError(f"{name} is not a readable .zip file ({error}).") from None
    found = sorted((path for path in entries if path.name == TOKENIZER), key=lambda path: len(path.parts))
    if not found:
        return folder_from_files(name, {path.name: b"" for path in entries if path.name in FILES})
    folder = found[0].parent
    files = {}
    for file_name in FILES:
        info = entries.get(folder / file_name)
        if info is None:
            continue
        if info.file_size > MAX_UNPACKED_BYTES:  # as the archive says; the read below stops there anyway
            raise TokenizerFileError(f"{file_name} in {name} unpacks to {info.file_size / 1e6:,.0f} MB; "
                                     f"the limit is {MAX_UNPACKED_BYTES // 1_000_000} MB.")
        try:
            with archive.open(info) as member:
                files[file_name] = member.read(MAX_UNPACKED_BYTES + 1)
        except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError) as error:
            raise TokenizerFileError(f"Cannot unpack {file_name} from {name} ({error}).") from None
    return folder_from_files(name, files)


def zip_member_count(data: bytes) -> int | None:
    """How many members a .zip says it holds, read from its end record
    (the last 22 bytes but a comment) before `zipfile` reads an entry for
    each; 65,535 (the most the record holds) for a ZIP64 archive, None
    where no end record is found (`zipfile` then says what is wrong)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 65_535))
    if end < 0 or len(data) < end + 12:
        return None
    return int.from_bytes(data[end + 10:end + 12], "little")


def cached_model_folder(model_id: str) -> ModelFolder:
    """A model id's folder in the local Hugging Face cache, read offline."""
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HFValidationError, LocalEntryNotFoundError
    except ImportError:  # it comes with `tokenizers`
        raise TokenizerFileError("Reading the Hugging Face cache needs huggingface_hub (pip install huggingface_hub).") from None
    try:
        path = snapshot_download(model_id, local_files_only=True, allow_patterns=list(FILES))
    except HFValidationError as error:
        raise TokenizerFileError(f"{model_id!r} is not a model id ({error}).") from None
    except (LocalEntryNotFoundError, OSError):
        raise TokenizerFileError(
            f"{model_id} is not in the local Hugging Face cache (nothing is downloaded here); "
            "download it once with `huggingface-cli download " + model_id + "`, or give its folder."
        ) from None
    return dataclasses.replace(read_folder(Path(path)), name=model_id)


def _utf8(data: bytes, file_name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise TokenizerFileError(f"{file_name} is not UTF-8 text (byte {error.start}).") from None


def config_template(config: Mapping) -> str | None:
    """The chat template tokenizer_config.json holds: a string, or a list of
    named templates of which transformers takes "default"."""
    template = config.get("chat_template")
    if isinstance(template, list):
        named = {item.get("name"): item.get("template") for item in template if isinstance(item, dict)}
        template = named.get("default")
    return template if isinstance(template, str) else None
