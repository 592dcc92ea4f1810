"""Reading a tokenizer file that a visitor uploads, in a capped process.

A file is small; what reading it takes need not be. A 48 KB gzip unpacks to
50 MB of `{"a":[[],[],...]}`, which Python's JSON reader turns into millions
of objects: 3.4 s of processor time, with every other visitor's page
waiting, and 1.3 GB at its peak. Most limits on what a file may ask for
(see `formats.reading`) can be checked only once it is read. So an upload is
unpacked, parsed and checked in a visitor's job (see `budgeted_jobs`), in
the line for short checks that a typed regex's probe takes (see
`machine_turns`), within a memory cap and a deadline; what comes back is
the tokenizer it makes, pickled as its constructor's arguments, whose size
the checks bounded. Everything that goes wrong, over the caps included, is
one `TokenizerFileError` line.

A model folder (a .zip, or its files together) is unpacked and read into a
`ModelFolder` the same way; its tokenizer.json then has a probe of its own
before Hugging Face's `tokenizers` loads it in a host process (see
`sandbox.untrusted_tokenizer`, `vocabularies.model_folders`). What comes
back of its tokenizer_config.json is only what the server reads of it (the
named special tokens a chat template sees): a 5 MB file can hold two
million lists, which the server would otherwise build again when it
unpickles the folder.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from ..engine.encoding_base import EncodingBase
from ..formats import TokenizerFileError, tokenizer_from_file
from ..formats.hf_folder import CONFIG, ModelFolder, folder_from_files, read_zip
from ..sandbox.machine_turns import CHECK_TURNS
from ..vocabularies.chat_templates import NAMED_SPECIAL_TOKENS, template_variables
from .budgeted_jobs import Budget, JobWords, run_within_budget

READING_BUDGET = Budget(seconds=60, memory_bytes=1_000_000_000)  # o200k_base as a tokenizer.json: ~0.2 GB, 5-10 s
MAX_TEMPLATE_VARIABLES = 1_000  # special tokens a chat template sees by name: Gemma 3's config names 7
READING = JobWords("Reading this file", "use the command line (python -m bpe_core encode --tokenizer FILE)")


def tokenizer_from_upload(file_name: str, data: bytes, pattern: str = "cl100k") -> EncodingBase:
    """`formats.tokenizer_from_file(file_name, data, pattern)`, read in a capped process."""
    return _read_within_budget(_tokenizer_from_file, (file_name, data, pattern))


def folder_from_upload(name: str, files: Mapping[str, bytes] | bytes) -> ModelFolder:
    """A model folder from an uploaded .zip (`files` its bytes) or from its
    files chosen together (file name -> bytes), read in a capped process."""
    return _read_within_budget(_folder, (name, files))


def _read_within_budget(job, arguments: tuple):
    try:
        return run_within_budget(job, arguments, READING_BUDGET, READING, turns=CHECK_TURNS)
    except ValueError as error:  # the file's fault, over the caps, no turn: each one line
        raise TokenizerFileError(str(error).removesuffix(".") + ".") from None


def _tokenizer_from_file(file_name: str, data: bytes, pattern: str, *, deadline: float, progress) -> EncodingBase:
    return tokenizer_from_file(file_name, data, pattern)


def _folder(name: str, files: Mapping[str, bytes] | bytes, *, deadline: float, progress) -> ModelFolder:
    folder = read_zip(name, files) if isinstance(files, bytes) else folder_from_files(name, files)
    return dataclasses.replace(folder, config=what_the_server_reads(folder.config))


def what_the_server_reads(config: Mapping) -> dict:
    """tokenizer_config.json cut to what the server reads of it: the special
    tokens a chat template sees by name, as text, which give the same
    `template_variables` (the template itself is `ModelFolder.chat_template`
    already). TokenizerFileError for more names than a template could use."""
    variables = template_variables(config)
    if len(variables) > MAX_TEMPLATE_VARIABLES:
        raise TokenizerFileError(f"{CONFIG} names {len(variables):,} special tokens; a chat template here sees at "
                                 f"most {MAX_TEMPLATE_VARIABLES:,}.")
    named = {name: variables.pop(name) for name in NAMED_SPECIAL_TOKENS if name in variables}
    return {**named, "extra_special_tokens": variables} if variables else named

