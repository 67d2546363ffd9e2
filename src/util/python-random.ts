// CPython's random.Random for integer seeds (docs/protocol.md §2): the paper's 500-question sample is
// `random.Random(233).shuffle(list(range(7405)))[:500]`, so we need the same Mersenne Twister, the same
// seeding (init_by_array over the 32-bit words of abs(seed)) and the same draw algorithms as
// CPython 3.11 (Modules/_randommodule.c and Lib/random.py). BigInt only appears for draws wider than 53
// bits; shuffles of ordinary lists stay on plain numbers.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const TWO_32 = 4294967296;

/** Number of bits needed to write a non-negative integer (Python's int.bit_length()). */
function bitLength(n: number): number {
  if (n < TWO_32) return 32 - Math.clz32(n);
  let bits = 32;
  let hi = Math.floor(n / TWO_32);
  while (hi >= 1) {
    bits++;
    hi = Math.floor(hi / 2);
  }
  return bits;
}

function bigBitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length;
}

function assertSafeInt(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be a safe integer, got ${value}`);
}

export type PythonSeed = number | bigint | string;

export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed: PythonSeed) {
    this.seed(seed);
  }

  /** random.seed(int): the key is the little-endian list of 32-bit words of abs(seed) ([0] for 0). */
  seed(seed: PythonSeed): void {
    let n: bigint;
    if (typeof seed === 'bigint') n = seed;
    else if (typeof seed === 'number') {
      assertSafeInt(seed, 'seed');
      n = BigInt(seed);
    } else {
      if (!/^-?\d+$/.test(seed.trim())) throw new RangeError(`seed must be an integer, got ${JSON.stringify(seed)}`);
      n = BigInt(seed.trim());
    }
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const keyLength = key.length;
    for (let k = N > keyLength ? N : keyLength; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
      if (j >= keyLength) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1];
        i = 1;
      }
    }
    mt[0] = 0x80000000; // MSB is 1, assuring a non-zero initial array
    this.mti = N;
  }

  /** genrand_uint32: the next 32-bit output of MT19937. */
  nextUint32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      let y: number;
      for (; kk < N - M; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random(): a 53-bit float in [0, 1), exactly as random_random() builds it. */
  random(): number {
    const a = this.nextUint32() >>> 5;
    const b = this.nextUint32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** getrandbits(k) for any k >= 0; words are drawn least significant first, the last one truncated. */
  getrandbits(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) throw new RangeError('number of bits must be non-negative');
    if (k <= 32) return BigInt(this.getrandbitsNumber(k));
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.nextUint32();
      if (left < 32) r >>>= 32 - left;
      result |= BigInt(r) << shift;
      shift += 32n;
    }
    return result;
  }

  /** getrandbits(k) for k <= 53, as a number (same draws as getrandbits). */
  getrandbitsNumber(k: number): number {
    if (k <= 32) {
      if (k === 0) return 0;
      return this.nextUint32() >>> (32 - k);
    }
    if (k > 53) throw new RangeError('getrandbitsNumber supports k <= 53');
    const lo = this.nextUint32();
    const hi = this.nextUint32() >>> (64 - k);
    return hi * TWO_32 + lo;
  }

  /** _randbelow_with_getrandbits(n): rejection sampling on getrandbits(n.bit_length()), n a safe integer. */
  randbelow(n: number): number {
    assertSafeInt(n, 'n');
    if (n <= 0) throw new RangeError('randbelow needs n > 0');
    const k = bitLength(n);
    if (k <= 32) {
      // Fast path for list-sized n (shuffles): one 32-bit word per try.
      const shift = 32 - k;
      let r = this.nextUint32() >>> shift;
      while (r >= n) r = this.nextUint32() >>> shift;
      return r;
    }
    let r = this.getrandbitsNumber(k);
    while (r >= n) r = this.getrandbitsNumber(k);
    return r;
  }

  /** _randbelow for arbitrary-precision n. */
  randbelowBig(n: bigint): bigint {
    if (n <= 0n) throw new RangeError('randbelow needs n > 0');
    const k = bigBitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** randrange(stop) / randrange(start, stop[, step]) with Python 3.11's argument handling. */
  randrange(start: number, stop?: number, step = 1): number {
    assertSafeInt(start, 'start');
    if (stop === undefined) {
      if (step !== 1) throw new TypeError('Missing a non-None stop argument');
      if (start > 0) return this.randbelow(start);
      throw new RangeError('empty range for randrange()');
    }
    assertSafeInt(stop, 'stop');
    assertSafeInt(step, 'step');
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new RangeError(`empty range for randrange() (${start}, ${stop}, ${width})`);
    }
    let n: number;
    if (step > 0) n = Math.floor((width + step - 1) / step);
    else if (step < 0) n = Math.floor((width + step + 1) / step);
    else throw new RangeError('zero step for randrange()');
    if (n <= 0) throw new RangeError('empty range for randrange()');
    return start + step * this.randbelow(n);
  }

  /** randint(a, b) = randrange(a, b + 1). */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** shuffle(x) in place: for i in reversed(range(1, len(x))): j = _randbelow(i + 1); swap. */
  shuffle<T>(x: T[]): T[] {
    for (let i = x.length - 1; i > 0; i--) {
      // Inlined _randbelow(i + 1) (i + 1 < 2**32 for any JS array): one 32-bit word per try.
      const n = i + 1;
      const shift = Math.clz32(n);
      let j = this.nextUint32() >>> shift;
      while (j >= n) j = this.nextUint32() >>> shift;
      const t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    return x;
  }

  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new RangeError('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)];
  }

  /**
   * sample(population, k) as in CPython 3.11: a pool copy when a list of n is smaller than a set of
   * k (setsize = 21, plus 4 ** ceil(log(3k, 4)) when k > 5), otherwise rejection against a set.
   * The population may be given as its length (range(n)), which avoids materialising big ranges.
   */
  sample<T>(population: readonly T[], k: number): T[];
  sample(population: number, k: number): number[];
  sample<T>(population: readonly T[] | number, k: number): (T | number)[] {
    const n = typeof population === 'number' ? population : population.length;
    assertSafeInt(n, 'population size');
    const at = (i: number): T | number => (typeof population === 'number' ? i : population[i]);
    if (!Number.isInteger(k) || k < 0 || k > n) throw new RangeError('Sample larger than population or is negative');
    const result: (T | number)[] = new Array(k);
    let setsize = 21;
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4));
    if (n <= setsize) {
      const pool: (T | number)[] = typeof population === 'number' ? Array.from({ length: n }, (_, i) => i) : [...population];
      for (let i = 0; i < k; i++) {
        const j = this.randbelow(n - i);
        result[i] = pool[j];
        pool[j] = pool[n - i - 1];
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = this.randbelow(n);
        while (selected.has(j)) j = this.randbelow(n);
        selected.add(j);
        result[i] = at(j);
      }
    }
    return result;
  }
}

/** `idxs = list(range(n)); random.Random(seed).shuffle(idxs)`: the paper's sampling idiom (§2). */
export function shuffledRange(n: number, seed: PythonSeed): number[] {
  const idxs = new Array<number>(n);
  for (let i = 0; i < n; i++) idxs[i] = i;
  return new PythonRandom(seed).shuffle(idxs);
}
