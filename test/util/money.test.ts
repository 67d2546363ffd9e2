// Money never shows a cost that is not zero as zero: under half a hundredth of a cent, where four
// decimals give "$0.0000" (a free model's figure), two significant digits are shown ("$0.000017").
// Every other amount prints as it always did (many tests and READMEs quote those strings).
import { describe, expect, it } from 'vitest';
import { billText, dollars, dollarsCell, figureText, fixedHalfAway, usd, usdExact, usdFigure, usdText } from '../../src/util/money.js';

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

  it('chooses its decimals from the rounded amount: just under a dollar that rounds to one reads as a dollar', () => {
    expect(usd(0.99995)).toBe('$1.00');
    expect(usd(0.999949)).toBe('$0.9999');
    expect(usd(1)).toBe('$1.00');
    expect(usd(0.99995)).toBe(usd(1));
    expect(usd(999.995)).toBe('$1,000.00');
  });

  it('marks a lower bound with ≥ in every printed form (a sheet keeps its number), and writes no figure for an unknown one', () => {
    expect(billText(0.0123, 'whole')).toBe('$0.0123');
    expect(billText(0.0123, 'at-least')).toBe('≥ $0.0123');
    expect(billText(0, 'unknown')).toBeNull();
    expect(usdText(1234.5, 'at-least')).toBe('≥ $1,234.50');
    expect(usdText(0, 'unknown')).toBeNull();
    expect(figureText(0.0123, 'at-least')).toBe('≥0.0123');
    expect(figureText(0.0123, 'whole')).toBe('0.0123');
    expect(figureText(0, 'unknown')).toBe('unknown');
    // summary.csv's cost columns stay numbers: its counts of the calls left out say which is a bound.
    expect(dollarsCell(0.0000125, 'at-least')).toBe(0.000013);
    expect(dollarsCell(0.0000125, 'whole')).toBe(0.000013);
    expect(dollarsCell(0, 'unknown')).toBe('');
  });

  it('rounds half away from zero on the decimal an amount is, not on its binary value', () => {
    // 3,655 tokens at $10 per million: the nearest double is a hair under 0.03655
    expect(fixedHalfAway(0.03655, 4)).toBe('0.0366');
    expect(fixedHalfAway(0.00015, 4)).toBe('0.0002');
    expect(fixedHalfAway(2.675, 2)).toBe('2.68');
    expect(fixedHalfAway(-0.03655, 4)).toBe('-0.0366');
    expect(fixedHalfAway(-0.00001, 4)).toBe('0.0000');
    expect(fixedHalfAway(9.5, 0)).toBe('10');
    expect(fixedHalfAway(1e-7, 4)).toBe('0.0000');
    expect(fixedHalfAway(123456789.125, 2)).toBe('123456789.13');
    expect(fixedHalfAway(0.1 + 0.2, 2)).toBe('0.30');
  });

  it('the progress line, the bill and the reports show one figure for one amount', () => {
    // every bill of 1..20,000 tokens at a few per-million prices
    for (const perM of [0.5, 1.5, 2, 10, 30]) {
      for (let tokens = 1; tokens <= 20_000; tokens += 7) {
        const x = (tokens * perM) / 1e6;
        expect(usd(x)).toBe(usdExact(x));
        expect(usdExact(x)).toBe(`$${usdFigure(x)}`);
      }
    }
    expect(usd(0.03655)).toBe('$0.0366');
    expect(usdExact(0.03655)).toBe('$0.0366');
    expect(usd(1234.565)).toBe('$1,234.57');
    // summary.csv's six decimals, rounded once (scaling, then three decimals, then an integer rounded twice)
    expect(dollars(0.0000124996)).toBe(0.000012);
    expect(dollars(0.0000125)).toBe(0.000013);
    expect(dollars(0.1 + 0.2)).toBe(0.3);
  });
});
