import { describe, expect, it } from 'vitest';
import { countOccurrences, lowerFirstCodePoint, pyStrip } from '../../src/util/python-str.js';

describe('Python str helpers', () => {
  it('pyStrip uses Python whitespace: \\x1c-\\x1f and \\x85 stripped, \\ufeff kept', () => {
    expect(pyStrip('\u001c\u001d\u001e\u001f\u0085 a b \t\n\u000b\u000c\r\u00a0\u3000')).toBe('a b');
    expect(pyStrip('\ufeffa\ufeff')).toBe('\ufeffa\ufeff');
    expect('\ufeffa\ufeff'.trim()).toBe('a'); // the difference that matters
    expect(pyStrip('')).toBe('');
    expect(pyStrip(' \n ')).toBe('');
  });

  it('lowerFirstCodePoint lowers one code point, like action[0].lower() + action[1:]', () => {
    expect(lowerFirstCodePoint('Search[Foo]')).toBe('search[Foo]');
    expect(lowerFirstCodePoint('search[Foo]')).toBe('search[Foo]');
    expect(lowerFirstCodePoint('')).toBe('');
    // Non-BMP capital (DESERET CAPITAL LONG I, U+10400): one code point, two UTF-16 units.
    expect(lowerFirstCodePoint('\u{10400}X')).toBe('\u{10428}X');
    // Python's full case mapping: 'İ'.lower() == 'i\u0307'.
    expect(lowerFirstCodePoint('\u0130X')).toBe('i\u0307X');
    // A capital unassigned in Unicode 14 (Python 3.11) stays unchanged, as in CPython 3.11.
    expect(lowerFirstCodePoint('\u{10D50}x')).toBe('\u{10D50}x');
  });

  it('countOccurrences matches len(s.split(sep)) - 1', () => {
    expect(countOccurrences('a\nAction 1: b', '\nAction 1: ')).toBe(1);
    expect(countOccurrences('a\nAction 1: b\nAction 1: c', '\nAction 1: ')).toBe(2);
    expect(countOccurrences('aaaa', 'aa')).toBe(2);
    expect(countOccurrences('', 'x')).toBe(0);
  });
});
