"""The BPE engine: text in, tokens out, and tokens learned from a corpus.

In the order text flows: `patterns` cuts text into pieces (beside `specials`,
the reserved tokens, and `utf8`), `corpus` counts a training corpus's pieces,
`merge_learning` learns merges from those counts and `training` turns them
into a `tokenizer`; `merge_loop` encodes one piece (`c_encoder` is the same
algorithm in C, from the sources in `native/`), `encoding_base` gives
every kind of tokenizer tiktoken's interface, and `encoding` is tiktoken's
constructor over ranks of one's own. Two tokenizers encode more than a merge
list: `replay_tokenizer` (training also removed tokens: `event_replay`
replays both, for Picky BPE) and `superwords` (tokens that join whole
pieces, for BoundlessBPE). Training's two hot loops, counting pieces and
learning merges, also exist in C (`native/`, built by pip): `native_training`
runs them where they are built, with the same results. tiktoken's own
`Encoding`, for what only it computes, is imported when first needed, under
a name of this package's own (`real_tiktoken`).
"""
