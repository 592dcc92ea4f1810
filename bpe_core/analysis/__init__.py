"""What the pages compute, beside the engine and never inside it.

Each module answers one page's questions with plain data: every step of a
training run, ready to step through (`training_view`), what a token is made
of (`token_cards`), where tokenizers split a text
differently (`comparison`), how compression grows with the vocabulary
(`compression`), what a language pays in tokens (`tax`), how a word is
encoded merge by merge (`replay`), what a vocabulary holds (`vocabulary`),
why tokenization surprises people (`quirks`); `labels` writes a token as
readable text and `downloads` turns tables into safe CSV. Drawing all of it
is `bpe_core.drawing`'s job; Streamlit is the pages'.
"""
