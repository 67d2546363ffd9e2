#!/usr/bin/env python3
"""Writes CPython random.Random test vectors for src/util/python-random.ts.

Run from the repo root with CPython 3.11:  python3 scripts/gen_python_random_fixtures.py
Outputs (committed; tests never run Python):
  test/fixtures/python-random/vectors.json        per-seed draws (uint32, random, getrandbits, ...)
  test/fixtures/python-random/shuffle-hashes.json Random(seed).shuffle(list(range(n))) for n = 1..10000
  test/fixtures/python-random/paper-samples.json  the dataset index lists of the paper's splits
"""
import hashlib
import json
import random
import struct
import sys
from array import array
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "test" / "fixtures" / "python-random"

SEEDS = [0, 1, 42, 233, -233, 2**32 - 1, 2**32, 2**32 + 1, 2**53 + 7, 2**64 + 5,
         int("1234567890" * 10)]  # the last one has 100 digits
BIG_KS = [0, 1, 2, 5, 16, 31, 32, 33, 48, 53, 63, 64, 65, 96, 100, 128, 200, 1000]
SHUFFLE_FULL_LENGTHS = [1, 2, 3, 5, 10, 31, 100, 257, 1000]
SAMPLE_CASES = [  # (n, k): k <= 5 -> setsize 21; k = 6 -> 85; both the pool and the set branch
    (1, 1), (5, 0), (5, 5), (10, 3), (21, 5), (22, 5), (30, 5), (85, 6), (86, 6), (100, 10),
    (1000, 5), (1000, 100), (1000, 1000), (7405, 500), (9999, 500), (2**40, 7)]
HASH_SEEDS = [233, 0, 2**64 + 5]
HASH_MAX_LEN = 10000


def perm_hash(xs):
    """First 8 hex digits of sha256 over the list as little-endian uint32 (mirrored in the tests)."""
    a = array("I", xs)
    if sys.byteorder != "little":
        a.byteswap()
    return hashlib.sha256(a.tobytes()).hexdigest()[:8]


def seed_vectors(seed):
    v = {"seed": str(seed)}
    r = random.Random(seed)
    v["uint32"] = [r.getrandbits(32) for _ in range(40)]
    r = random.Random(seed)
    v["random"] = [repr(r.random()) for _ in range(25)]
    r = random.Random(seed)
    v["getrandbits"] = [[k, str(r.getrandbits(k))] for k in BIG_KS for _ in range(2)]
    r = random.Random(seed)
    v["randbelow"] = [[n, r._randbelow(n)] for n in
                      [1, 2, 3, 7, 100, 7405, 9999, 2**31, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1,
                       10**12, 2**53 - 1] for _ in range(3)]
    r = random.Random(seed)
    v["randbelowBig"] = [[str(n), str(r._randbelow(n))] for n in [2**64, 2**64 + 1, 10**30, 3**100]]
    r = random.Random(seed)
    v["randrange"] = [[a, b, s, r.randrange(a, b, s)] for (a, b, s) in
                      [(0, 10, 1), (5, 6, 1), (-50, 50, 1), (0, 100, 7), (100, 0, -3), (-10, 10, 4),
                       (0, 2**40, 1), (3, 1000, 10)] for _ in range(2)]
    r = random.Random(seed)
    v["randint"] = [[a, b, r.randint(a, b)] for (a, b) in [(1, 6), (0, 0), (-5, 5), (0, 2**33)] for _ in range(3)]
    r = random.Random(seed)
    pop = list(range(50))
    v["choice"] = [r.choice(pop) for _ in range(20)]
    r = random.Random(seed)
    v["sample"] = [[n, k, r.sample(range(n), k)] for (n, k) in SAMPLE_CASES]
    shuffles = {}
    for n in SHUFFLE_FULL_LENGTHS:
        xs = list(range(n))
        random.Random(seed).shuffle(xs)
        shuffles[str(n)] = xs
    v["shuffle"] = shuffles
    # One generator, many calls in a row: the state carries over between methods.
    r = random.Random(seed)
    mixed = []
    for i in range(30):
        mixed.append(["randbelow", r._randbelow(i + 1)])
        mixed.append(["random", repr(r.random())])
        mixed.append(["getrandbits", str(r.getrandbits(i * 7))])
    xs = list(range(20))
    r.shuffle(xs)
    mixed.append(["shuffle", xs])
    mixed.append(["sample", r.sample(range(100), 30)])
    v["mixed"] = mixed
    return v


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    vectors = {"python": sys.version.split()[0], "seeds": [seed_vectors(s) for s in SEEDS]}
    (OUT / "vectors.json").write_text(json.dumps(vectors, separators=(",", ":")) + "\n")

    hashes = {"python": sys.version.split()[0], "maxLength": HASH_MAX_LEN,
              "method": "Random(seed).shuffle(list(range(n))); sha256 of little-endian uint32; first 8 hex",
              "seeds": {}}
    for seed in HASH_SEEDS:
        parts = []
        for n in range(1, HASH_MAX_LEN + 1):
            xs = list(range(n))
            random.Random(seed).shuffle(xs)
            parts.append(perm_hash(xs))
        hashes["seeds"][str(seed)] = "".join(parts)
    (OUT / "shuffle-hashes.json").write_text(json.dumps(hashes, separators=(",", ":")) + "\n")

    # §2 the paper's sample and the splits derived from it.
    idxs = list(range(7405))
    random.Random(233).shuffle(idxs)
    fixed = list(range(9999))
    random.Random(233).shuffle(fixed)
    covered = json.loads((ROOT / "envs" / "wikipedia" / "hotpotqa-2017" / "covered_dev_indices.json").read_text())
    covered_set = set(covered)
    samples = {
        "python": sys.version.split()[0],
        "hotpotqa/react500": idxs[:500],
        "fever/react500": idxs[:500],
        "fever/react500-fixed": fixed[:500],
        "hotpotqa/offline500": [i for i in idxs if i in covered_set][:500],
        "shuffle7405": idxs,
    }
    (OUT / "paper-samples.json").write_text(json.dumps(samples, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
