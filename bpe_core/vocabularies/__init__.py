"""Published tokenizers, by name: OpenAI's vocabularies and other makers'
(the zoo), with their chat templates.

`catalogue` is the one place a name resolves: what each tokenizer is, where
its file comes from, how it loads and how its chat prompt is built. The rest
is what those entries call: `openai` (the bundled rank files), `zoo` (the
makers' loaders), the kinds of tokenizer that are not plain byte-level BPE
(`normalized`, `sentencepiece_model`), `chat` and `harmony` (chat templates),
and `bundled_files` (makers' files shipped in `files/`, checked on load).
"""
