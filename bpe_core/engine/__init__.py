"""The BPE engine: text in, tokens out, and tokens learned from a corpus.

In the order text flows: `patterns` cuts text into pieces (beside `specials`,
the reserved tokens, and `utf8`), `corpus` counts a training corpus's pieces,
`merge_learning` learns merges from those counts and `training` turns them
into a `tokenizer`; `merge_loop` encodes one piece, `encoding_base` gives
every kind of tokenizer tiktoken's interface, and `encoding` is tiktoken's
constructor over ranks of one's own. Two tokenizers encode more than a merge
list: `replay_tokenizer` (training also removed tokens: `event_replay`
replays both, for Picky BPE) and `superwords` (tokens that join whole
pieces, for BoundlessBPE). The fast engine beside the readable one is
tiktoken's Rust BPE (`rust_bpe`), for whole texts or for one piece at a
time (`piece_bpe`).
"""
