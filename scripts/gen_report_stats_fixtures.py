#!/usr/bin/env python3
"""Writes test/fixtures/report/stats.json: independent expectations for src/report/numbers.ts and
src/report/stats.ts, computed in CPython 3.11 with exact rationals (fractions, decimal) and scipy.

Run from the repo root:  python3 scripts/gen_report_stats_fixtures.py   (needs scipy for McNemar)

  rounding      (sum, n) → 100·sum/n to one decimal, ROUND_HALF_UP (= half away from zero) on the
                exact Fraction of the double `sum`; and lists of float values → their mean the same way
  mulberry      the first outputs of mulberry32 for a few seeds (the PRNG, re-implemented here)
  bootstrap     the suite's exact procedure (mulberry32 resampling, inverted-CDF percentiles) redone here:
                the interval ends as sums and as percentages
  exact         for tiny inputs, the whole bootstrap distribution of the sum by enumerating every
                multinomial count vector (no sampling): support points with P(S = s), exact Fractions
                turned into floats at the end; for paired inputs the same over differences
  mcnemar       the exact two-sided McNemar p-value from scipy.stats.binomtest(min(b,c), b+c, 0.5)
                and from an exact Fraction sum
"""
import itertools
import json
import math
import random
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

from scipy.stats import binomtest

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "test" / "fixtures" / "report" / "stats.json"
M32 = 0xFFFFFFFF


def pct1(fr):
    """Fraction → percentage with one decimal, half away from zero, as a string ("78.9")."""
    # Decimal division is inexact for 1/3 etc., so divide integers: tenths = round_half_up(1000·num/den).
    num, den = fr.numerator * 1000, fr.denominator
    neg = num < 0
    q, r = divmod(abs(num), den)
    if 2 * r >= den:
        q += 1
    q = -q if neg else q
    return str((Decimal(q) / Decimal(10)).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def imul(a, b):
    return (a * b) & M32


def mulberry32(seed):
    a = seed & M32

    def nxt():
        nonlocal a
        a = (a + 0x6D2B79F5) & M32
        t = a
        t = imul(t ^ (t >> 15), t | 1)
        t = (t ^ ((t + imul(t ^ (t >> 7), t | 61)) & M32)) & M32
        return (t ^ (t >> 14)) & M32  # the 32-bit integer k; the JS value is k / 2**32

    return nxt


def ranks(B, level):
    tail = (1 - level) / 2
    return math.ceil(B * tail - 1e-9), math.ceil(B * (1 - tail) - 1e-9)


def bootstrap_sums(values, seed, B):
    n = len(values)
    nxt = mulberry32(seed)
    sums = []
    for _ in range(B):
        s = 0.0
        for _ in range(n):
            s += values[(nxt() * n) >> 32]  # floor(k/2^32 · n), exact in integers
        sums.append(s)
    sums.sort()
    return sums


def exact_distribution(values):
    """P(S = s) for S = sum of n draws with replacement from values (n = len(values)), exactly."""
    n = len(values)
    fr = [Fraction(v) for v in values]
    dist = {}
    total = n**n
    for counts in compositions(n, n):
        coef = math.factorial(n)
        for c in counts:
            coef //= math.factorial(c)
        s = sum(c * v for c, v in zip(counts, fr))
        dist[s] = dist.get(s, 0) + coef
    return sorted((s, Fraction(w, total)) for s, w in dist.items())


def compositions(total, parts):
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in compositions(total - first, parts - 1):
            yield (first,) + rest


def mcnemar_fraction(b, c):
    m = b + c
    if m == 0:
        return Fraction(1)
    k = min(b, c)
    return min(Fraction(1), Fraction(2 * sum(math.comb(m, i) for i in range(k + 1)), 2**m))


def main():
    rng = random.Random(10)
    out = {"generator": "scripts/gen_report_stats_fixtures.py", "python": "3.11"}

    # --- rounding ---
    counts = [(15, 19), (1, 8), (2, 3), (1, 3), (0, 7), (7, 7), (1, 2000), (1, 200), (3, 8), (5, 8), (-1, 8),
              (154, 500), (177, 500), (1, 6), (5, 6), (10, 16), (1, 16), (13, 40), (137, 400), (999, 1000)]
    for _ in range(300):
        n = rng.randint(1, 1000)
        counts.append((rng.randint(0, n), n))
    out["rounding_counts"] = [{"sum": s, "n": n, "expected": pct1(Fraction(s, n))} for s, n in counts]

    float_lists = []
    # F1-like values (2pr/(p+r) computed in floats), and values whose float sum rounds differently.
    for size in (3, 7, 19, 50, 500):
        vals = []
        for _ in range(size):
            p = rng.randint(0, 6) / rng.randint(1, 6)
            r = rng.randint(0, 6) / rng.randint(1, 6)
            p, r = min(p, 1.0), min(r, 1.0)
            vals.append(0.0 if p + r == 0 else 2 * p * r / (p + r))
        float_lists.append(vals)
    float_lists.append([0.1] * 10 + [0.0] * 10)  # 0.1 is above 1/10 in binary: exact mean 5.0000...03 → 5.0
    float_lists.append([0.05, 0.0])  # 2.5000000000000001387 % → 2.5
    float_lists.append([0.00125, 0.0])  # 0.0625...% stays 0.1
    float_lists.append([1 / 3, 1 / 3, 1 / 3])
    float_lists.append([0.7, 0.8, 0.9, 0.6, 0.75])
    out["rounding_means"] = [
        {"values": vals, "expected": pct1(sum((Fraction(v) for v in vals), Fraction(0)) / len(vals))} for vals in float_lists
    ]

    # --- the PRNG ---
    out["mulberry"] = []
    for seed in (0, 1, 233, 2**32 - 1, 123456789):
        nxt = mulberry32(seed)
        out["mulberry"].append({"seed": seed, "ints": [nxt() for _ in range(8)]})

    # --- the procedure, redone ---
    boot_cases = [
        ("15 of 19", [1.0] * 15 + [0.0] * 4, 233),
        ("154 of 500", [1.0] * 154 + [0.0] * 346, 233),
        ("interleaved 31 of 100", [1.0 if i % 3 == 0 else 0.0 for i in range(100)][:100], 7),
        ("F1-like 50", float_lists[3], 233),
        ("tiny", [0.0, 1.0, 1.0, 0.5, 0.25], 42),
    ]
    out["bootstrap"] = []
    for name, vals, seed in boot_cases:
        B = 10000
        sums = bootstrap_sums(vals, seed, B)
        lo, hi = ranks(B, 0.95)
        n = len(vals)
        out["bootstrap"].append({
            "name": name, "values": vals, "seed": seed, "resamples": B, "level": 0.95,
            "lo_sum": sums[lo - 1], "hi_sum": sums[hi - 1],
            "lo": pct1(Fraction(sums[lo - 1]) / n), "hi": pct1(Fraction(sums[hi - 1]) / n),
        })

    # paired: the same procedure over differences, with the percentile-inversion p-value
    pa = [1.0 if rng.random() < 0.45 else 0.0 for _ in range(120)]
    pb = [x if rng.random() < 0.8 else 1.0 - x for x in pa]
    paired_cases = [("binary 120", pa, pb, 233)]
    out["paired"] = []
    for name, a, b, seed in paired_cases:
        d = [x - y for x, y in zip(a, b)]
        B = 10000
        sums = bootstrap_sums(d, seed, B)
        lo, hi = ranks(B, 0.95)
        n = len(d)
        atmost = sum(1 for s in sums if s <= 0)
        atleast = sum(1 for s in sums if s >= 0)
        out["paired"].append({
            "name": name, "a": a, "b": b, "seed": seed, "resamples": B,
            "lo": pct1(Fraction(sums[lo - 1]) / n), "hi": pct1(Fraction(sums[hi - 1]) / n),
            "diff": pct1((sum(map(Fraction, a)) - sum(map(Fraction, b))) / n),
            "p": min(1.0, 2 * min(atmost, atleast) / B),
        })

    # --- exact bootstrap distributions (no sampling at all) ---
    exact_inputs = [
        ("5 binary", [1.0, 1.0, 0.0, 1.0, 0.0]),
        ("6 binary", [1.0, 0.0, 0.0, 1.0, 1.0, 1.0]),
        ("6 F1-like", [0.0, 0.4, 1.0, 2 / 3, 0.5, 1.0]),
        ("7 binary", [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]),
        ("7 paired differences", [1.0, -1.0, 0.0, 1.0, 0.0, 1.0, 0.0]),
    ]
    out["exact"] = []
    for name, vals in exact_inputs:
        dist = exact_distribution(vals)
        cdf = Fraction(0)
        support = []
        for s, p in dist:
            cdf += p
            support.append({"sum": float(s), "p": float(p), "cdf": float(cdf)})
        le0 = sum((p for s, p in dist if s <= 0), Fraction(0))
        ge0 = sum((p for s, p in dist if s >= 0), Fraction(0))
        out["exact"].append({"name": name, "values": vals, "support": support,
                             "p_two_sided": float(min(Fraction(1), 2 * min(le0, ge0)))})

    # --- McNemar ---
    out["mcnemar"] = []
    for b, c in [(0, 0), (1, 0), (0, 5), (3, 3), (5, 1), (10, 2), (12, 30), (25, 40), (100, 120), (300, 250), (400, 320), (7, 7)]:
        scipy_p = 1.0 if b + c == 0 else binomtest(min(b, c), b + c, 0.5).pvalue
        out["mcnemar"].append({"b": b, "c": c, "p_scipy": float(scipy_p), "p_exact": float(mcnemar_fraction(b, c))})

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
