"""Texts that exercise tokenizers where they differ and break: many scripts,
code, emoji sequences, whitespace runs, line endings, numbers, specials."""

TRICKY_TEXTS = [
    "",
    "a",
    "Hello, world! It's 2024; we'll see. THEY'RE HERE, aren't they?",
    "The price rose from $1,234.56 to $9,999.99 (+710.2%) on 14/03/2024 at 09:45.",
    "3.14159265358979323846264338327950288419716939937510 and 1e-10 and 0x1F",
    "9.11 vs 9.9 — which is larger? 12345678901234567890",
    "strawberry STRAWBERRY Strawberry s t r a w b e r r y",
    " SolidGoldMagikarp TheNitromeFan davidjl petertodd",
    "    def tokenize(self, text: str) -> list[int]:\n        return [ord(c) for c in text]\n",
    "\tif (x) {\n\t\treturn y;\n\t}\r\n\r\n",
    "line one\r\nline two\rline three\nline four\n\n\n\n",
    "trailing spaces   \n   leading spaces\n" + " " * 40 + "x" + " " * 40,
    "\u00a0non-breaking\u2009thin\u3000ideographic\u200bzero-width spaces",
    "Ünïcödé façade naïve coöperate déjà vu Œuvre ß ẞ",
    "Привет, мир! Как дела? Ёжик в тумане.",
    "Γειά σου κόσμε; Καλημέρα.",
    "שלום עולם! مرحبا بالعالم! سلام دنیا",
    "नमस्ते दुनिया। यह एक परीक्षण है।",
    "বাংলা ভাষা, தமிழ் மொழி, తెలుగు భాష",
    "สวัสดีชาวโลก ภาษาไทยไม่มีช่องว่างระหว่างคำ",
    "မင်္ဂလာပါ ကမ္ဘာလောက။ ဘာသာစကား",
    "ሰላም ለዓለም። አማርኛ ቋንቋ",
    "Բարեւ աշխարհ։ Გამარჯობა მსოფლიო",
    "你好，世界！这是一个测试。日本語のテキストです。한국어 텍스트입니다.",
    "emoji: 👍 👍🏽 👩‍💻 👨‍👩‍👧‍👦 🇯🇵 🏳️‍🌈 ❤️ 🫠 and text",
    "combining: e\u0301 a\u0308 \u0301\u0302 lone marks; ZWJ \u200d alone; VS16 \ufe0f",
    "control: \x00 \x01 \x1b[31m red \x7f \u0085 \u2028 \u2029",
    "<|endoftext|> between <|endoftext|>documents<|fim_prefix|>x<|endofprompt|>",
    "<script>alert('xss')</script> <b>bold</b> **markdown** [link](http://x)",
    "a" * 3000,
    " " * 1000,
    "\n" * 200 + "end",
    "ab" * 500 + " " + "1234567890" * 50,
    "https://example.com/path?query=value&other=1#fragment user@example.com",
    "camelCaseWordsAndHTTPServer snake_case_words kebab-case-words",
    # Scripts and sequences that real models' vocabularies cover unevenly.
    "हिन्दी में संयुक्ताक्षर: क्ष त्र ज्ञ श्र, और अनुस्वार-चन्द्रबिन्दु: हँसना, संस्कृत।",
    "မြန်မာစာ၏ ကျောက်စာများ၊ ဗမာ့ ယဉ်ကျေးမှု။ ၁၂၃၄၅",
    "የኢትዮጵያ ፌዴራላዊ ዲሞክራሲያዊ ሪፐብሊክ፤ ፩፪፫ ፲",
    "العَرَبِيَّة مع التشكيل، وأرقام ٠١٢٣٤٥٦٧٨٩ وكشيدة: مـــرحـــبـــا",
    "ZWJ: 🧑🏿‍🤝‍🧑🏻 👁️‍🗨️ 🏴‍☠️ 👩🏽‍🚀 🧔‍♀️ 🐈‍⬛ 🏳️‍⚧️ 1️⃣ 🇺🇳🇪🇺",
    "3" * 1000 + " 0.000000000000000001 " + "9876543210" * 40,
    "mixed whitespace:\t \u3000\u00a0 \n\n\t\t  \r\n" + " \t" * 200 + "\n" * 30 + "\u2003" * 50,
]


def assigned_characters(**options):
    """Characters Unicode had assigned by the version Python's `unicodedata`
    knows (14 here), as a hypothesis strategy. The `regex` module and
    tiktoken's Rust engine each carry later Unicode tables, and on the
    newest letters (Unicode 17's, such as U+323B0) they split differently;
    on everything older all three agree. Comparing the readable engine with
    tiktoken needs that common ground; `encode` itself is tiktoken's."""
    from hypothesis import strategies as st

    return st.characters(codec="utf-8", exclude_categories=("Cn", "Cs"), **options)
