#!/usr/bin/env python3
"""Writes the scoring fixtures for src/tasks/scoring.ts, computed with CPython 3.11 and a verbatim
copy of the released wrappers.py scoring functions (ysymyth/ReAct, docs/protocol.md §7).

Run from the repo root:  python3 scripts/gen_scoring_corpus.py
  test/fixtures/scoring/corpus.jsonl      one (prediction, gold) pair per line with CPython's results:
                                          normalize_answer of both, EM, f1_score (f1, precision, recall)
                                          and HotPotQAWrapper.get_metrics' f1 (hotpotF1)
  test/fixtures/scoring/codepoints.json   sha256 (per block of 4096 code points) of normalize_answer
                                          over probe strings built around every code point
"""
import hashlib
import json
import random
import re
import string
import sys
import unicodedata
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "test" / "fixtures" / "scoring"


# --- the released scoring code (wrappers.py), unchanged in behaviour ---
def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth):
    normalized_prediction = normalize_answer(prediction)
    normalized_ground_truth = normalize_answer(ground_truth)
    ZERO_METRIC = (0, 0, 0)
    if normalized_prediction in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return ZERO_METRIC
    if normalized_ground_truth in ["yes", "no", "noanswer"] and normalized_prediction != normalized_ground_truth:
        return ZERO_METRIC
    prediction_tokens = normalized_prediction.split()
    ground_truth_tokens = normalized_ground_truth.split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return ZERO_METRIC
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1, precision, recall


def hotpot_metrics(answer, gold):
    """HotPotQAWrapper.get_metrics with data[idx][1] = gold and info['answer'] = answer."""
    pred = normalize_answer(gold)
    gt = normalize_answer(answer)
    em = pred == gt
    f1 = f1_score(pred, gt)[0]
    return {"reward": int(em), "em": int(em), "f1": float(f1)}


def fever_metrics(answer, gold):
    """FeverWrapper.get_reward, then step()'s info.update({'em': reward, 'reward': reward, 'f1': reward})."""
    reward = 1 if normalize_answer(gold) == normalize_answer(answer) else 0
    return {"reward": reward, "em": reward, "f1": reward}


# --- inputs ---
WS = ["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\xa0", "\u1680", "\u2000",
      "\u2007", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_WS = ["\u200b", "\ufeff", "\u180e", "\u2060"]
TRICKY = [
    "a", "an", "the", "The", "THE", "A", "An", "aN", " ", " ", " ", "é", "e\u0301", "É", "E\u0301", "Σ", "σ", "ς",
    "ΣΑΣ", "İ", "I", "ı", "ß", "ẞ", "ǅ", "ǈ", "ﬁ", "ﬀ", "Ω", "Ω", "K", "Å", "ŉ", "ΐ", "_", "-", ".", "'", "\"",
    ",", "!", "?", "(", ")", "[", "]", "…", "–", "—", "“", "”", "‘", "’", "«", "»", "、", "。", "・", "¿", "¡",
    "1", "0", "²", "½", "Ⅻ", "ⅻ", "٣", "३", "〇", "一", "中", "東京", "ｔｈｅ", "Ａ", "😀", "👍🏽", "🇫🇷", "𝐀", "𝔞",
    "\u0301", "\u0308", "\u0345", "ʰ", "ª", "º", "\u00ad", "\u200d", "\u034f", "ǰ", "ᾈ", "ᾳ", "Ᾰ", "Ꭰ", "ꭰ",
    "Ⓐ", "ⓐ", "Ⅰ", "𐐀", "𐐨", "𞤀", "yes", "no", "noanswer", "Yes", "NO", "No Answer", "x", "b", "theme",
    "them", "ann", "anthe", "a.", "the,", "'s", "s",
] + WS + NOT_WS
WORDS = ["the", "a", "an", "river", "Paris", "Σίσυφος", "ΟΔΟΣ", "straße", "İstanbul", "Ĳssel", "café", "cafe\u0301",
         "naïve", "東京都", "서울", "Москва", "ЁЛКА", "Ἀθῆναι", "ΌΣΟΣ", "Ελλάς", "1990", "½", "x²", "O'Neil",
         "U.S.", "yes", "no", "noanswer", "co-op", "rock'n'roll", "😀", "AT&T", "C++", "e.g.", "ǅemal", "ﬁsh"]


def add(pairs, p, g, kind):
    pairs.append((p, g, kind))


def perturb(rng, s):
    ops = [
        lambda t: t,
        lambda t: t.lower(),
        lambda t: t.upper(),
        lambda t: t.title(),
        lambda t: "The " + t,
        lambda t: "the " + t + ".",
        lambda t: "A " + t,
        lambda t: t + " the",
        lambda t: f'"{t}"',
        lambda t: t + "!!!",
        lambda t: "  " + rng.choice(WS) + t + rng.choice(WS) + " ",
        lambda t: t.replace(" ", rng.choice(WS)),
        lambda t: t.replace(" ", rng.choice(NOT_WS)),
        lambda t: " ".join(t.split()[:-1]) if len(t.split()) > 1 else t + " x",
        lambda t: " ".join(t.split()[1:]) if len(t.split()) > 1 else "x " + t,
        lambda t: " ".join(reversed(t.split())),
        lambda t: t + " " + t,
        lambda t: unicodedata.normalize("NFD", t),
        lambda t: unicodedata.normalize("NFKC", t),
        lambda t: "".join(c for c in unicodedata.normalize("NFD", t) if not unicodedata.combining(c)),
        lambda t: t.replace("-", " ").replace(",", ""),
        lambda t: t + " " + rng.choice(WORDS),
        lambda t: rng.choice(WORDS) + rng.choice(["", " "]) + t,
        lambda t: t.replace("a", "á").replace("e", "e\u0301"),
        lambda t: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in t),  # fullwidth
        lambda t: "I think the answer is " + t,
        lambda t: "",
    ]
    return rng.choice(ops)(s)


def random_tricky(rng, n):
    return "".join(rng.choice(TRICKY) + (rng.choice([" ", "", ""])) for _ in range(n))


ASSIGNED_PLANES = [(0x0000, 0x3FFFF), (0xE0000, 0xE0FFF)]


def random_codepoint(rng):
    while True:
        lo, hi = rng.choice([(0, 0x2FFF), (0x3000, 0xFFFF), (0x10000, 0x1FFFF), (0x20000, 0x3FFFF), (0xE0000, 0xE01EF)])
        cp = rng.randint(lo, hi)
        if not 0xD800 <= cp <= 0xDFFF:
            return chr(cp)


def random_unicode(rng, n):
    out = []
    for _ in range(n):
        r = rng.random()
        out.append(rng.choice(["the", "a", "an", " ", "Σ"]) if r < 0.3 else random_codepoint(rng))
    return "".join(out)


def main():
    rng = random.Random(20240607)
    hotpot = json.loads((ROOT / "data" / "hotpotqa" / "hotpot_dev_v1_simplified.json").read_text())
    answers = [d["answer"] for d in hotpot]
    pairs = []

    # Hand-written cases named in the brief.
    hand = [
        ("The Eiffel Tower", "eiffel tower"), ("an apple", "apple"), ("a", ""), ("the", "the"), ("", ""),
        ("éthe", "é"), ("éthe", "éthe"), ("e\u0301the", "e\u0301"), ("the\u0301", "\u0301"), ("1the", "1"),
        ("the1", "1"), ("²the", "²"), ("½ the", "½"), ("Ⅻthe", "Ⅻ"), ("_the", "_"), ("中the中", "中 中"),
        ("😀the😀", "😀 😀"), ("the😀", "😀"), ("ΟΔΟΣ", "οδος"), ("ΟΔΟΣ", "οδοσ"), ("ΣΑΣ ΣΑΣ", "σας σας"),
        ("Σ", "σ"), ("ΑΣ\u0301", "ας\u0301"), ("Α\u0301Σ", "α\u0301ς"), ("ʰΣ", "ʰσ"), ("AΣʰ", "aς"),
        ("İstanbul", "istanbul"), ("İstanbul", "i̇stanbul"), ("STRASSE", "straße"), ("Straße", "STRASSE"),
        ("ẞ", "ß"), ("ǅ", "ǆ"), ("Kelvin", "kelvin"), ("Ω", "ω"), ("ﬁ", "fi"),
        ("yes", "Yes."), ("yes", "no"), ("no", "No!"), ("noanswer", "no answer"), ("yes yes", "yes"),
        ("yes", "yes sir"), ("no way", "no"), ("NOANSWER", "noanswer"),
        ("a\x1cb", "a b"), ("a\x1db\x1ec\x1fd", "a b c d"), ("a\x85b", "a b"), ("a\u3000b", "a b"),
        ("a\u200bb", "a b"), ("a\u00a0b", "a b"), ("a\u2028b", "a b"), ("the\x1cend", "end"),
        ("the\u200bend", "end"), ("...", ""), ("!!!the!!!", ""), ("a-the-b", "atheb"), ("U.S.A.", "usa"),
        ("rock 'n' roll", "rock n roll"), ("the the the", ""), ("an an", "a"), ("Anne", "anne"),
        ("SUPPORTS", "SUPPORTS"), ("supports.", "SUPPORTS"), ("NOT ENOUGH INFO", "NOT ENOUGH INFO"),
        ("not enough", "NOT ENOUGH INFO"), ("REFUTES", "SUPPORTS"), ("Refutes", "REFUTES"),
    ]
    for p, g in hand:
        add(pairs, p, g, "hand")
        add(pairs, g, p, "hand")
    for label in ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO"]:
        for pred in ["SUPPORTS", "REFUTES", "NOT ENOUGH INFO", "supports", "Refutes.", "not enough info",
                     "NOT ENOUGH", "INFO", "", "The claim is SUPPORTS", "SUPPORTS\n", "  refutes  "]:
            add(pairs, pred, label, "fever")

    # Real HotpotQA answers with perturbations.
    for _ in range(2600):
        g = rng.choice(answers)
        p = perturb(rng, g) if rng.random() < 0.85 else rng.choice(answers)
        add(pairs, p, g, "hotpot")
    # Random strings over a tricky alphabet (articles beside non-ASCII, Σ contexts, odd whitespace).
    for _ in range(1500):
        add(pairs, random_tricky(rng, rng.randint(1, 8)), random_tricky(rng, rng.randint(0, 8)), "tricky")
    for _ in range(400):
        g = random_tricky(rng, rng.randint(1, 6))
        add(pairs, perturb(rng, g), g, "tricky-perturbed")
    # Words lists (token F1 with repeats).
    for _ in range(400):
        g = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        p = " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 6)))
        add(pairs, p, g, "words")
    # Random code points from every assigned plane.
    for _ in range(600):
        add(pairs, random_unicode(rng, rng.randint(1, 20)), random_unicode(rng, rng.randint(0, 20)), "unicode")

    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "corpus.jsonl", "w", encoding="utf-8", newline="\n") as f:
        for p, g, kind in pairs:
            f1, prec, rec = f1_score(p, g)
            h, fv = hotpot_metrics(p, g), fever_metrics(p, g)
            # Both wrappers' em and reward equal the plain EM here; only HotPotQA's f1 needs its own field.
            assert h["em"] == h["reward"] == fv["em"] == fv["f1"] == fv["reward"] == int(normalize_answer(p) == normalize_answer(g))
            rec_ = {"kind": kind, "p": p, "g": g, "np": normalize_answer(p), "ng": normalize_answer(g),
                    "em": h["em"], "f1": float(f1), "precision": float(prec), "recall": float(rec),
                    "hotpotF1": h["f1"]}
            f.write(json.dumps(rec_, ensure_ascii=False, separators=(",", ":")) + "\n")

    # Every code point of the assigned planes, in probe strings; hashed per block of 4096.
    blocks = {}
    for lo, hi in ASSIGNED_PLANES + [(0xF0000, 0xF0FFF), (0x10F000, 0x10FFFF)]:
        for start in range(lo, hi + 1, 4096):
            h = hashlib.sha256()
            for cp in range(start, min(start + 4096, hi + 1)):
                if 0xD800 <= cp <= 0xDFFF:
                    continue
                c = chr(cp)
                probes = [c, "the" + c + "a", "ΑΣ" + c, "Α" + c + "Σ", c + "Σ", "x" + c + "y"]
                h.update(("\x00".join(normalize_answer(p) for p in probes) + "\x01").encode("utf-8"))
            blocks[f"{start:x}"] = h.hexdigest()[:16]
    (OUT / "codepoints.json").write_text(json.dumps({
        "python": sys.version.split()[0], "unicode": unicodedata.unidata_version,
        "probes": ["c", "the+c+a", "ΑΣ+c", "Α+c+Σ", "c+Σ", "x+c+y"],
        "method": "per code point: normalize_answer of each probe joined by U+0000, then U+0001; sha256 over UTF-8 per block, first 16 hex",
        "blockSize": 4096, "blocks": blocks}, ensure_ascii=False, indent=0) + "\n")
    print(f"{len(pairs)} pairs, {len(blocks)} code-point blocks")


if __name__ == "__main__":
    main()
