#!/usr/bin/env python3
"""Deterministic generator of the English corpus for the Whisper tokenizer
tests (tests/test_whisper_tokenizer.c, tests/whisper_tok_ref.mjs,
tests/whisper_tok_hf.py).

    python3 tests/gen_whisper_tok_corpus.py     (writes tests/data/whisper_tok_corpus.jsonl)

One JSON string per line: transcript-like English with punctuation, numbers
(money, times, dates, decimals, long digit runs), contractions in every case,
quotes and dashes, accented names, symbols, emoji, runs of spaces, tabs and
newlines at the start, inside and at the end, and the text forms of
Whisper's special tokens mixed in (they are added tokens: matched in the
text). Characters on which JavaScript's regex and HF tokenizers' disagree
(U+FEFF, U+0085; see tests/gen_tokenizer_corpus.py) are left out, so that
gpt-3-encoder is a valid reference.
Only stdlib; the output depends on nothing but this file.
"""
import json
import os
import random

R = random.Random(25025)

FIXED = [
    "And so, my fellow Americans: ask not what your country can do for you, ask what you can do for your country.",
    "I'm not sure we've got time, but we'll try. You'd think they'd've called.",
    "WE'RE LIVE IN FIVE, FOUR, THREE... ",
    "She said, \"It's 4:30 p.m. on Tuesday, March 3rd, 2024.\"",
    "The total comes to $1,234.56 (plus 8.25% tax).",
    "[Music]", "[MUSIC PLAYING]", "(applause)", "(Laughter)", "♪ La la la ♪", "♪♪", ">> SPEAKER 1: Hello?", ">> Yeah.",
    "- Hi. - Hey, how are you?", "-- and then -- well, nothing.", "Um, uh, you know, like...",
    "Mr. and Mrs. Smith live at 221B Baker St., London.", "Dr. O'Neil met Ms. D'Angelo at 9 a.m.",
    "The U.S.A., the U.K., and the E.U. signed on 12/25/2023.", "e.g. i.e. etc. vs. cf. et al.",
    "Call 1-800-555-0199 or +1 (212) 555-0123 ext. 42.", "Flight UA 2047 departs at 06:45 from gate B12.",
    "It's 98.6°F (37°C) outside — really hot.", "π ≈ 3.14159265358979; e ≈ 2.71828.",
    "1 2 3 4 5 6 7 8 9 10", "1234567890123456789012345678901234567890", "0.000001", "1e-9 2E+10 3.0e5",
    "The '90s were the best decade, weren't they?", "rock 'n' roll", "Rock'n'Roll", "ma'am", "y'all'd've",
    "It's", "IT'S", "It'S", "iT's", "DON'T", "Don'T", "you'RE", "They'LL", "he'D", "I'M", "we'VE",
    "'s 't 're 've 'm 'll 'd", "''", "'", "\"", "''quoted''", "'single' \"double\" `back`",
    "“Curly quotes,” she said, ‘and apostrophes’ — like that’s fine.", "don’t won’t can’t", "L’Oréal",
    "Café, naïve, résumé, façade, jalapeño, Zoë, Beyoncé, Brontë.", "São Paulo and Zürich and Kraków.",
    "Ælfred, Øresund, Þingvellir, Straße.", "Ω ohm, µ micro, Å angstrom", "ﬁne ﬂower (ligatures)",
    "The quick brown fox jumps over the lazy dog.", "THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG!",
    "Pack my box with five dozen liquor jugs?", "How vexingly quick daft zebras jump!",
    "hello", " hello", "  hello", "hello ", "hello  ", "   hello   ", "\thello", "hello\t", "\nhello\n",
    "hello\n\nworld", "hello\r\nworld", "hello \n world", "hello\t\tworld", "a  b   c    d     e",
    "", " ", "  ", "   ", "\n", "\n\n\n", "\t", " \t \n ", "\r\n", "          ", "end.   ", "   start",
    "line one\nline two\n  indented line three\n\ttabbed line four",
    "Ellipsis… and em—dash and en–dash", "Wait... what?!", "Really?!?!", "No!!!", "Yes???", "ok.......",
    "50% off!!! Only $9.99 — today only.", "£5, €10, ¥1000, ₹250, ₩5000", "#hashtag @mention",
    "https://www.example.com/path/to/page?query=1&x=y#anchor", "email me at john.doe@example.com",
    "C:\\Program Files\\App", "/usr/local/bin/python3", "snake_case camelCase PascalCase kebab-case SCREAMING_CASE",
    "state-of-the-art, well-known, mother-in-law", "twenty-one, ninety-nine, one hundred and one",
    "1st 2nd 3rd 4th 21st 22nd 23rd 101st", "No. 5, #7, item (a), section §3.2, ¶4",
    "3/4 cup, 1½ teaspoons, 2¼ inches", "x² + y² = z²", "H₂O and CO₂", "10 × 20 ÷ 5 = 40", "a ≠ b ≤ c ≥ d",
    "😀 😂 👍 🎉 ❤️", "I love it ❤️!", "Great job 👏👏👏", "🇺🇸 🇬🇧 🇨🇦", "👨‍👩‍👧‍👦 family",
    "Chapter 1: The Beginning", "Part II, Section iv", "Q: What? A: Nothing.", "TL;DR: it works.",
    "<|endoftext|>", "Hello<|endoftext|>", "<|startoftranscript|><|notimestamps|> Hello world.<|endoftext|>",
    "<|0.00|> Hello there.<|1.52|><|1.52|> General Kenobi!<|3.00|>", "<|30.00|>", "<|29.98|>x<|0.02|>",
    "<|en|><|transcribe|>", "<|translate|>", "<|startoflm|>", "<|startofprev|> previous text<|startoftranscript|>",
    "<|nocaptions|>", "<|nospeech|>", "<|notimestamps|>", "<|0.01|>", "<|30.02|>", "<|", "|>", "< |0.00| >",
    "<<|0.00|>>", "<|0.00|><|0.00|>", "text<|10.00|>text", "<|yue|>", "<|haw|>", "<|su|>",
]

NAMES = ["Alice", "Bob", "Charlie", "Dana", "Élodie", "François", "Günter", "Zoë", "Siobhán", "José", "Nguyễn", "O'Brien",
         "McDonald", "MacArthur", "van der Berg", "DeShawn", "Jean-Luc", "Renée", "Björk", "Chloë"]
WORDS = ("the of and to a in is it you that he was for on are with as I his they be at one have this from or had by hot word "
         "but what some we can out other were all there when up use your how said an each she which do their time if will way "
         "about many then them write would like so these her long make thing see him two has look more day could go come did "
         "number sound no most people my over know water than call first who may down side been now find any new work part "
         "take get place made live where after back little only round man year came show every good me give our under name "
         "very through just form sentence great think say help low line differ turn cause much mean before move right boy old "
         "too same tell does set three want air well also play small end put home read hand port large spell add even land "
         "here must big high such follow act why ask men change went light kind off need house picture try us again animal "
         "point mother world near build self earth father head stand own page should country found answer school grow study "
         "still learn plant cover food sun four between state keep eye never last let thought city tree cross farm hard start "
         "might story saw far sea draw left late run don't while press close night real life few north open seem together next "
         "white children begin got walk example ease paper group always music those both mark often letter until mile river car "
         "feet care second book carry took science eat room friend began idea fish mountain stop once base hear horse cut sure "
         "watch color face wood main enough plain girl usual young ready above ever red list though feel talk bird soon body dog "
         "family direct pose leave song measure door product black short numeral class wind question happen complete ship area "
         "half rock order fire south problem piece told knew pass since top whole king space heard best hour better true during "
         "hundred five remember step early hold west ground interest reach fast verb sing listen six table travel less morning "
         "ten simple several vowel toward war lay against pattern slow center love person money serve appear road map rain rule "
         "govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine note wait plan figure star "
         "box noun field rest correct able pound done beauty drive stood contain front teach week final gave green oh quick "
         "develop ocean warm free minute strong special mind behind clear tail produce fact street inch multiply nothing course "
         "stay wheel full force blue object decide surface deep moon island foot system busy test record boat common gold "
         "possible plane stead dry wonder laugh thousand ago ran check game shape equate miss brought heat snow tire bring yes "
         "distant fill east paint language among antidisestablishmentarianism supercalifragilisticexpialidocious "
         "pneumonoultramicroscopicsilicovolcanoconiosis floccinaucinihilipilification").split()
CONTRACTIONS = ["I'm", "you're", "he's", "she's", "it's", "we're", "they're", "I've", "you've", "we've", "they've", "I'd",
                "you'd", "he'd", "she'd", "we'd", "they'd", "I'll", "you'll", "he'll", "she'll", "we'll", "they'll", "isn't",
                "aren't", "wasn't", "weren't", "hasn't", "haven't", "hadn't", "won't", "wouldn't", "don't", "doesn't", "didn't",
                "can't", "couldn't", "shouldn't", "mightn't", "mustn't", "let's", "that's", "who's", "what's", "here's",
                "there's", "where's", "when's", "why's", "how's", "o'clock", "'cause", "'em", "gonna", "wanna", "gotta"]
PUNCT = [",", ".", "!", "?", ";", ":", "...", "…", "—", "–", "-", "--", "(", ")", "[", "]", "\"", "'", "“", "”", "‘", "’",
         "/", "&", "*", "%", "#", "@", "+", "=", "<", ">", "~", "^", "|", "_", "`", "{", "}", "♪", "♫", "«", "»", "•", "†"]
SYMBOLS = ["©", "®", "™", "°", "±", "×", "÷", "∞", "√", "∑", "∆", "≈", "≠", "µ", "¢", "£", "€", "¥", "§", "¶", "½", "¾",
           "→", "←", "↑", "↓", "✓", "✗", "★", "☆", "♠", "♥", "♦", "♣", "😀", "🙂", "😉", "🤔", "👍", "🔥", "💯", "🚀",
           "中文", "日本語", "한국어", "Привет", "Ελληνικά", "עברית", "العربية", "हिन्दी"]
WS = [" ", "  ", "   ", "    ", "\t", "\n", "\n\n", " \n", "\n ", "\r\n", " \t", "\t ", "        ", "\u00a0", "\u2009", "\u3000"]


def number():
    k = R.random()
    if k < 0.2:
        return str(R.randint(0, 100))
    if k < 0.35:
        return "{:,}".format(R.randint(1000, 10 ** R.randint(4, 10)))
    if k < 0.5:
        return "$%d.%02d" % (R.randint(0, 9999), R.randint(0, 99))
    if k < 0.6:
        return "%d:%02d" % (R.randint(0, 23), R.randint(0, 59))
    if k < 0.7:
        return "%d/%d/%d" % (R.randint(1, 12), R.randint(1, 28), R.randint(1900, 2100))
    if k < 0.8:
        return "%.*f" % (R.randint(1, 6), R.uniform(-1000, 1000))
    if k < 0.87:
        return "".join(R.choice("0123456789") for _ in range(R.randint(5, 40)))
    if k < 0.93:
        return "%d%%" % R.randint(0, 100)
    n = R.randint(1, 120)
    return str(n) + ("th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def word():
    k = R.random()
    if k < 0.62:
        w = R.choice(WORDS)
    elif k < 0.72:
        w = R.choice(CONTRACTIONS)
    elif k < 0.80:
        w = R.choice(NAMES)
    elif k < 0.90:
        w = number()
    else:
        w = R.choice(SYMBOLS)
    c = R.random()
    if c < 0.08:
        w = w.upper()
    elif c < 0.16:
        w = w[:1].upper() + w[1:]
    return w


def sentence():
    n = R.randint(1, 24)
    out = []
    for i in range(n):
        out.append(word())
        if i + 1 < n:
            r = R.random()
            if r < 0.10:
                out.append(R.choice(PUNCT))
                out.append(" " if R.random() < 0.7 else "")
            elif r < 0.18:
                out.append(R.choice(WS))
            elif r < 0.21:
                pass  # glued
            else:
                out.append(" ")
    s = "".join(out)
    s = s[:1].upper() + s[1:]
    s += R.choice([".", ".", ".", "?", "!", "...", "", ",", " —", ":", "?!", ".\"", ")"])
    if R.random() < 0.12:
        s = R.choice(WS) + s
    if R.random() < 0.12:
        s = s + R.choice(WS)
    if R.random() < 0.05:
        s = R.choice(["<|0.00|>", "<|endoftext|>", "<|notimestamps|>", "<|12.34|>"]) + s
    return s


def main():
    strings = list(FIXED)
    while len(strings) < 620:
        strings.append(sentence())
    for _ in range(12):  # long ones: a few paragraphs
        strings.append(" ".join(sentence() for _ in range(R.randint(8, 30))))
    seen, uniq = set(), []
    for s in strings:
        if s not in seen:
            seen.add(s)
            uniq.append(s)
    for s in uniq:
        assert "\ufeff" not in s and "\u0085" not in s
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "whisper_tok_corpus.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for s in uniq:
            f.write(json.dumps(s, ensure_ascii=False) + "\n")
    print("wrote %d strings to %s" % (len(uniq), path))


if __name__ == "__main__":
    main()
