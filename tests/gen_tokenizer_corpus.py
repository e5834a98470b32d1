#!/usr/bin/env python3
"""Deterministic generator of the tokenizer parity corpus.

    python3 tests/gen_tokenizer_corpus.py      (writes tests/data/*.jsonl)

tokenizer_corpus.jsonl      one JSON string per line, >= 2000 strings, compared
                            against the JS reference (@lenml/tokenizers) and HF.
tokenizer_corpus_hf_only.jsonl  strings where the JS reference is known to
                            differ from HF tokenizers (Oniguruma) and is therefore
                            only checked on the GPU machine against HF itself:
                              - U+FEFF and U+0085: JS \\s includes U+FEFF and
                                excludes U+0085; Oniguruma's \\s is White_Space
                              - "'\\u017f" (LONG S): HF's (?i:'s) matches it by
                                case folding; the JS port rewrites it to '[sS]
Only stdlib; output depends on nothing but this file.
"""
import json
import os
import random

R = random.Random(20261121)

LATIN = ["Hello world", "The quick brown fox jumps over the lazy dog.", "naïve café résumé", "Größe Straße Öl",
         "Ça va? Très bien!", "¿Dónde está la biblioteca?", "Zażółć gęślą jaźń", "Příliš žluťoučký kůň",
         "Tiếng Việt có dấu", "İstanbul ılık şehir", "Þetta er íslenska", "año pingüino", "œuvre Æsir",
         "łódź", "Ångström", "dŵr", "ß ẞ", "ﬁ ﬂ ligatures"]
CYRILLIC = ["Привет, мир!", "Съешь же ещё этих мягких французских булок", "Україна — це Європа", "Ёлка и йогурт",
            "Бългaрски език", "Српски језик"]
GREEK = ["Γειά σου Κόσμε", "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία", "ἀρχὴ ἥμισυ παντός", "Ωμέγα ς σ"]
CJK = ["你好，世界！", "我能吞下玻璃而不伤身体。", "日本語のテキストです。", "東京都渋谷区", "カタカナとひらがな",
       "漢字仮名交じり文", "中华人民共和国成立于1949年", "繁體中文測試", "１２３ＡＢＣ全角"]
KOREAN = ["안녕하세요 세계", "다람쥐 헌 쳇바퀴에 타고파", "한국어 텍스트 123", "ㄱㄴㄷ ㅏㅑ"]
ARABIC = ["مرحبا بالعالم", "اللغة العربية جميلة", "٠١٢٣٤٥٦٧٨٩ أرقام", "فَتْحَة ضَمَّة"]
HEBREW = ["שלום עולם", "עברית היא שפה", "בְּרֵאשִׁית"]
DEVANAGARI = ["नमस्ते दुनिया", "हिन्दी भाषा", "क्षत्रिय ज्ञान", "१२३४ अंक"]
THAI = ["สวัสดีชาวโลก", "ภาษาไทยง่ายนิดเดียว", "๑๒๓ ตัวเลข"]
OTHER_SCRIPTS = ["ქართული ენა", "Հայերեն", "ᠮᠣᠩᠭᠣᠯ", "தமிழ் மொழி", "বাংলা ভাষা", "ગુજરાતી", "ಕನ್ನಡ", "മലയാളം",
                 "සිංහල", "ພາສາລາວ", "ភាសាខ្មែរ", "አማርኛ", "ᏣᎳᎩ", "ᚠᚢᚦᚨᚱᚲ", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝕞𝕒𝕥𝕙", "𐌰𐌱𐌲 gothic"]
CODE = ["def f(x):\n    return x**2 + 1\n", "int main(void) { printf(\"%d\\n\", 42); return 0; }",
        "for (let i = 0; i < n; ++i) {\n\tsum += a[i];\n}", "SELECT * FROM users WHERE id = 7;",
        "<div class=\"x\">&amp;</div>", "x = {'a': [1, 2, 3], \"b\": None}", "#include <stdio.h>\r\n",
        "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }", "$ ls -la | grep '^d' > out.txt 2>&1",
        "    if (a && b || !c) { x <<= 2; y >>= 3; z ^= ~w; }", "λx.x → ∀a. a ⇒ b", "a_b_c __init__ self.__dict__",
        "https://example.com/path?q=1&r=two#frag", "user@example.org", "C:\\Windows\\System32", "0x1F 0b1010 1e-9 3.14159",
        "```python\nprint('hi')\n```", "// comment\n/* block */", "key: value\n  - item\n  - item2"]
EMOJI = ["😀", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🇯🇵", "🇺🇸🇬🇧", "❤️", "🧑🏿‍💻", "✌🏻", "🤷‍♀️", "1️⃣", "©️®️™️", "👩🏼‍🔬", "🐈‍⬛",
         "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "⌚⏰", "🫠", "☕️"]
CONTRACTIONS = ["I'm", "you're", "he's", "she'd", "we've", "they'll", "it's", "can't", "won't", "I'M", "YOU'RE",
                "He'S", "We'Ve", "THEY'LL", "Don'T", "o'clock", "rock'n'roll", "'s", "'t", "'re", "'ve", "'m", "'ll",
                "'d", "'S", "'LL", "ma'am", "'tis", "'sup", "l'amour", "dell'arte", "'123", "''s", "'", "''"]
SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|begin_of_text|>", "<|end_of_text|>",
            "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<s>", "</s>", "<unk>", "<think>", "</think>",
            "<|reserved_special_token_5|>", "<|im_start", "im_end|>", "<s", "s>", "<|", "|>"]
# non-NFC and combining-mark text (Qwen's NFC normalizer must compose these)
COMBINING = ["e\u0301", "A\u030A", "a\u0308o\u0308u\u0308", "n\u0303", "c\u0327", "a\u0323\u0302", "a\u0302\u0323",
             "o\u031B\u0301", "\u1100\u1161\u11A8", "\u1112\u1161\u11AB\u1100\u1173\u11AF", "\u0915\u093C",
             "e\u0301\u0301", "\u212B", "\u2126", "Å", "\u00C5\u0301", "x\u0300\u0316", "x\u0316\u0300",
             "\u0958", "\u0344", "\u1E9B\u0323", "\u0041\u030A\u0301", "i\u0307", "\u05D1\u05BC", "Z\u0351\u036B\u0343\u036A\u0302\u036B\u033D\u034F\u0334\u0319\u0324",
             "\u0625", "\u0627\u0655", "\u30AB\u3099", "\u304B\u3099", "\uFB2C", "\u1FC1", "\u0313\u0300"]
WS = [" ", "  ", "   ", "    ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r\n\r\n", " \n", "\n ", " \t ", "\u00A0", "\u3000",
      "\u2003", "\u2009", "\u202F", "\u205F", "\u1680", "\u2028", "\u2029", "\x0b", "\x0c", "\r", " \r\n  ", "      "]
PUNCT = [".", ",", "!", "?", "...", "—", "–", "-", "(", ")", "[", "]", "{", "}", "\"", "«", "»", "“", "”", "„", "‘", "’",
         "、", "。", "，", "！", "？", "%", "$", "€", "£", "¥", "@", "#", "&", "*", "+", "=", "~", "^", "|", "\\", "/",
         "::", "->", "=>", "!=", "<=", "§", "¶", "°", "±", "×", "÷", "∞", "√", "∑", "π", "©", "®", "™"]
WORDS = [w for grp in (LATIN, CYRILLIC, GREEK, CJK, KOREAN, ARABIC, HEBREW, DEVANAGARI, THAI, OTHER_SCRIPTS)
         for s in grp for w in s.split()]


def digits():
    n = R.choice([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 20, 33])
    s = "".join(R.choice("0123456789") for _ in range(n))
    r = R.random()
    if r < 0.15:
        s = s[:max(1, n // 2)] + "." + s[max(1, n // 2):]
    elif r < 0.25:
        s = "-" + s
    elif r < 0.3:
        s = "".join("٠١٢٣٤٥٦٧٨٩"[int(c)] for c in s)
    elif r < 0.35:
        s = "".join("０１２３４５６７８９"[int(c)] for c in s)
    elif r < 0.38:
        s = s + "½" + "²³"
    return s


def piece():
    k = R.random()
    if k < 0.30:
        return R.choice(WORDS)
    if k < 0.40:
        return digits()
    if k < 0.48:
        return R.choice(PUNCT)
    if k < 0.55:
        return R.choice(CONTRACTIONS)
    if k < 0.62:
        return R.choice(EMOJI)
    if k < 0.68:
        return R.choice(COMBINING)
    if k < 0.72:
        return R.choice(SPECIALS)
    if k < 0.76:
        return R.choice(CODE)
    return R.choice(WORDS).upper() if R.random() < 0.3 else R.choice(WORDS)


def mixed():
    n = R.randint(1, 14)
    out = []
    for i in range(n):
        out.append(piece())
        r = R.random()
        if i + 1 < n:
            if r < 0.65:
                out.append(" ")
            elif r < 0.85:
                out.append(R.choice(WS))
            # else: glued
    s = "".join(out)
    if R.random() < 0.15:
        s = R.choice(WS) + s
    if R.random() < 0.15:
        s = s + R.choice(WS)
    return s


def main():
    fixed = []
    for grp in (LATIN, CYRILLIC, GREEK, CJK, KOREAN, ARABIC, HEBREW, DEVANAGARI, THAI, OTHER_SCRIPTS, CODE, EMOJI,
                CONTRACTIONS, SPECIALS, COMBINING, PUNCT):
        fixed.extend(grp)
    fixed += ["", " ", "  ", "\n", "\t", "\r\n", " " * 50, "\n" * 10, "\t \t \n", " a", "a ", "  a", "a  ", "   hello",
              "hello   ", "\n\nhello\n\n", "x" * 300, "ab" * 200, "1" * 40, "1234567890" * 5, "a1b2c3", "abc123def",
              "$1,000,000.00", "3.14 2.718 1e10", "I'm I'M i'M", "He said \"don't\"", "'s's's", "it'sn't",
              "<|im_start|>user\nhi<|im_end|>\n", "<s>[INST] hi [/INST]", "x<s>y</s>z", " <s> ", "<|begin_of_text|>Hi",
              "a<|im_end|>", "<|im_start|><|im_start|>", "<<|im_start|>>", "hello\u0301", "\u0301start", "▁x ▁ y",
              "<0x41>", "▁▁▁", "Ġhello Ċ", "ﬀ", "\u00ad soft hyphen", "zero\u200bwidth", "rtl\u200fmark",
              "\u0000nul", "a\u0001b\u007fc", "tab\there", "mixed 中文 English 123 😀!"]
    strings = list(fixed)
    while len(strings) < 2300:
        strings.append(mixed())
    # long strings
    for _ in range(20):
        strings.append(" ".join(mixed() for _ in range(30)))
    seen = set()
    uniq = []
    for s in strings:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    hf_only = ["a\ufeffb", "\ufeff", "x \ufeff y", "a\u0085b", "line\u0085next", " \u0085 ", "it'\u017f", "I'\u017fOK",
               "'\u017f", "a\u180eb"]
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
    os.makedirs(here, exist_ok=True)
    with open(os.path.join(here, "tokenizer_corpus.jsonl"), "w", encoding="utf-8") as f:
        for s in uniq:
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    with open(os.path.join(here, "tokenizer_corpus_hf_only.jsonl"), "w", encoding="utf-8") as f:
        for s in hf_only:
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    print("wrote %d + %d strings" % (len(uniq), len(hf_only)))


if __name__ == "__main__":
    main()
