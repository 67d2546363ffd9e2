// Money never shows a cost that is not zero as zero: under half a hundredth of a cent, where four
// decimals give "$0.0000" (a free model's figure), two significant digits are shown ("$0.000017").
// Every other amount prints as it always did (many tests and READMEs quote those strings).
import { describe, expect, it } from 'vitest';
import { usd, usdExact, usdFigure } from '../../src/util/money.js';

describe('money', () => {
  it('a non-zero amount that four decimals would round to zero shows two significant digits', () => {
    expect(usdExact(0.000017)).toBe('$0.000017');
    expect(usd(0.000017)).toBe('$0.000017');
    expect(usdFigure(0.000017)).toBe('0.000017');
    expect(usdExact(0.0000172)).toBe('$0.000017');
    expect(usdExact(0.00001)).toBe('$0.000010');
    expect(usdExact(0.0000499)).toBe('$0.000050');
    expect(usdExact(0.0000099)).toBe('$0.0000099');
    expect(usdExact(1.2e-9)).toBe('$0.0000000012');
    // rounding that carries into a third digit drops a decimal instead
    expect(usdExact(0.00000999)).toBe('$0.000010');
    expect(usd(0.00000996)).toBe('$0.000010');
    // absurdly small: exponent notation rather than a hundred zeros
    expect(usdFigure(5e-324)).toBe('4.9e-324');
  });

  it('zero and every amount of a hundredth of a cent or more print as before', () => {
    expect(usd(0)).toBe('$0.0000');
    expect(usdExact(0)).toBe('$0.0000');
    expect(usdFigure(0)).toBe('0.0000');
    expect(usdFigure(0.00005)).toBe('0.0001');
    expect(usdFigure(0.00012)).toBe('0.0001');
    expect(usd(0.1229)).toBe('$0.1229');
    expect(usd(1234.5)).toBe('$1,234.50');
    expect(usd(1.005)).toBe('$1.01');
    expect(usdExact(1.75031)).toBe('$1.7503');
    expect(usdExact(1234.5)).toBe('$1234.5000');
    expect(usdFigure(0.02)).toBe('0.0200');
  });
});
