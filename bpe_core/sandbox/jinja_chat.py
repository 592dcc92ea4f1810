"""Rendering a chat template from a tokenizer_config.json as transformers does, within bounds.

A Hugging Face model folder says how its chat prompts look with a Jinja
template (`chat_template`). transformers' `apply_chat_template` renders it
in Jinja's sandbox, an `ImmutableSandboxedEnvironment` with `trim_blocks`
and `lstrip_blocks`, the loop controls and a `{% generation %}` block,
`tojson` that leaves non-ASCII and HTML alone, and three functions of its own
(`raise_exception`, `strftime_now`, a `dict` and a `namespace` that refuse
names starting with "_"); the template sees `messages`, `tools`,
`documents`, `add_generation_prompt` and the tokenizer's named special
tokens (`bos_token`, `eos_token`, ...). `environment()` is that, written
out from transformers' `utils/chat_template_utils.py` (transformers itself
is not needed), so a prompt renders here exactly as there.

Jinja's sandbox stops a template from reaching Python's insides, not from
running long: two nested loops over `range(100000)` or a string doubled
forty times are valid templates. A template from someone's folder is
therefore rendered in a throwaway process with a memory cap and a limit on
processor time (`render_untrusted`), as a typed regex is tried (see
`untrusted_regex`); what goes wrong comes back as one `TemplateProblem`
line. The makers' templates that ship with the project render here directly
(`render`).
"""

from __future__ import annotations

import datetime
import functools
import json
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .machine_turns import CHECK_TURNS, NoTurnError, UnsafeFolderError
from .worker_processes import cap_this_process, end_worker, helper_context

RENDER_CPU_SECONDS = 3  # of processor time, for the throwaway process to render
RENDER_WAIT_SECONDS = 60.0  # of the clock: on a busy machine the process may get little of a core
RENDER_MEMORY_BYTES = 256_000_000  # the throwaway process may grow by this much
MAX_PROMPT_CHARS = 1_000_000  # what a rendered prompt may hold (a chat here is at most 20,000 characters of turns)
MAX_TEMPLATE_CHARS = 200_000  # the longest makers' templates are about 20,000


class TemplateProblem(ValueError):
    """A chat template that cannot render this conversation, said in one line."""


# ------------------------------------------------------------ the environment


def _raise_exception(message):
    import jinja2

    raise jinja2.exceptions.TemplateError(message)


def _tojson(value, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    """transformers' `tojson`: Jinja's own escapes HTML characters."""
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(format):
    return datetime.datetime.now().strftime(format)


@functools.cache
def environment():
    """The Jinja environment transformers renders chat templates in."""
    import jinja2
    import jinja2.ext
    import jinja2.nodes
    import jinja2.sandbox
    import jinja2.utils

    class Generation(jinja2.ext.Extension):
        """`{% generation %}...{% endgeneration %}`: transformers marks the
        assistant's tokens with it; rendering keeps its body."""

        tags = frozenset({"generation"})

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

        def _body(self, caller):
            return caller()

    class TemplateDict:
        """`dict(...)` without a way to its class's attributes."""

        def __call__(self, *args, **kwargs):
            return dict(*args, **kwargs)

        def fromkeys(self, *args, **kwargs):
            return dict.fromkeys(*args, **kwargs)

    class TemplateNamespace(jinja2.utils.Namespace):
        """`namespace(...)` that refuses names starting with "_"."""

        def __init__(*args, **kwargs):
            self, args = args[0], args[1:]
            attributes = dict(*args, **kwargs)
            for name in attributes:
                TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__init__(self, attributes)

        def __setitem__(self, name, value):
            TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check_name(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}."
                )

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(
        trim_blocks=True, lstrip_blocks=True, extensions=[Generation, jinja2.ext.loopcontrols]
    )
    env.filters["tojson"] = _tojson
    env.globals.update(raise_exception=_raise_exception, strftime_now=_strftime_now, dict=TemplateDict(),
                       namespace=TemplateNamespace)
    return env


@functools.lru_cache(maxsize=32)
def _compiled(template: str):
    return environment().from_string(template)


# ------------------------------------------------------------ rendering


@dataclass(frozen=True)
class Rendered:
    """A conversation rendered three ways, which together say which text is
    whose (see `vocabularies.chat_templates`): as transformers renders
    it (`text`); with each turn's text replaced by a marker (`marked`); and
    without the cue for the assistant's reply (`without_cue`, None where the
    template raised without it)."""

    text: str
    marked: str
    without_cue: str | None


def marker(turn: int) -> str:
    """What stands for turn `turn`'s text in `Rendered.marked`: characters
    of Unicode's private use area, which no template changes or trims."""
    return f"\ue000{turn}\ue001"


def render(template: str, messages: Sequence[Mapping[str, str]], variables: Mapping[str, str]) -> Rendered:
    """`messages` ({"role", "content"}) rendered by `template` with the
    tokenizer's named special tokens `variables`, in this process: for the
    makers' templates that ship here. TemplateProblem if the template
    refuses the conversation (`raise_exception`) or breaks."""
    import jinja2

    if len(template) > MAX_TEMPLATE_CHARS:
        raise TemplateProblem(f"The chat template is {len(template):,} characters long; the limit is {MAX_TEMPLATE_CHARS:,}.")
    try:
        compiled = _compiled(template)
    except jinja2.TemplateSyntaxError as error:
        raise TemplateProblem(f"The chat template is not valid Jinja (line {error.lineno}: {error.message}).") from None

    def once(turns, cue: bool) -> str:
        text = compiled.render(messages=[dict(turn) for turn in turns], tools=None, documents=None,
                               add_generation_prompt=cue, **variables)
        if len(text) > MAX_PROMPT_CHARS:
            raise TemplateProblem(f"The chat template wrote {len(text):,} characters; a prompt here holds at most "
                                  f"{MAX_PROMPT_CHARS:,}.")
        return text

    try:
        text = once(messages, cue=True)
        marked = once([{**turn, "content": marker(index)} for index, turn in enumerate(messages)], cue=True)
    except jinja2.TemplateError as error:  # raise_exception, an undefined name, the sandbox's refusals
        raise TemplateProblem(f"The chat template refused this conversation: {error}") from None
    except (TemplateProblem, MemoryError, RecursionError):
        raise
    except Exception as error:  # noqa: BLE001 - a template is code: any error of its is its own
        raise TemplateProblem(f"The chat template failed: {type(error).__name__}: {error}") from None
    try:
        without_cue = once(messages, cue=False)
    except (MemoryError, RecursionError):
        raise
    except Exception:  # noqa: BLE001 - only the cue's place is lost
        without_cue = None
    return Rendered(text, marked, without_cue)


def render_untrusted(template: str, messages: Sequence[Mapping[str, str]], variables: Mapping[str, str]) -> Rendered:
    """`render` in a throwaway process with a memory cap and a limit on
    processor time, in its turn in the machine's line for checks (see
    `machine_turns`): for a template from a visitor's folder."""
    try:
        with CHECK_TURNS.turn(wait_seconds=RENDER_WAIT_SECONDS):
            kind, value = _render_in_a_throwaway_process(template, messages, variables)
    except (NoTurnError, UnsafeFolderError):
        raise TemplateProblem("The chat template cannot be rendered now: the server is busy checking other "
                              "visitors' input; try again in a minute.") from None
    if kind == "problem":
        raise TemplateProblem(value)
    return value


def _render_in_a_throwaway_process(template: str, messages: Sequence[Mapping[str, str]], variables: Mapping[str, str]):
    context = helper_context()
    receiver, sender = context.Pipe(duplex=False)
    arguments = (template, [dict(turn) for turn in messages], dict(variables), sender)
    process = context.Process(target=_render_capped, args=arguments, daemon=True)
    try:
        process.start()
    except (OSError, AssertionError) as error:  # no process to be had here (a daemon may start none)
        raise TemplateProblem(f"The chat template cannot be rendered safely here: no process to render it in ({error}).") from None
    finally:
        sender.close()
    try:
        if not receiver.poll(RENDER_WAIT_SECONDS):
            raise TemplateProblem(TOO_SLOW)
        return receiver.recv()
    except EOFError:  # the kernel stopped it at its processor time or its memory cap
        process.join()
        raise TemplateProblem(TOO_SLOW if process.exitcode == -signal.SIGXCPU else TOO_BIG) from None
    finally:
        receiver.close()
        end_worker(process)


TOO_SLOW = f"The chat template ran for more than {RENDER_CPU_SECONDS} s of processor time (does it loop?)."
TOO_BIG = f"The chat template needs more than {RENDER_MEMORY_BYTES // 1_000_000} MB to render this conversation."


def _render_capped(template: str, messages: list, variables: dict, sender) -> None:
    """In the throwaway process: cap memory and processor time, render, report."""
    cap_this_process(RENDER_MEMORY_BYTES, RENDER_CPU_SECONDS)
    try:
        sender.send(("done", render(template, messages, variables)))
    except TemplateProblem as problem:
        sender.send(("problem", str(problem)))
    except (MemoryError, RecursionError):
        sender.send(("problem", TOO_BIG))
