// Text as LaTeX pdflatex sets in its default fonts (README "Reports"). Everything written is plain ASCII:
// the few non-ASCII characters of the report's text become math or text macros (−, Δ, →, ≤, ·, §...);
// captions and notes may also break inside long tokens, and write `code` in typewriter type.

const ACCENTS: Record<string, string> = {
  '\u0301': "\\'",
  '\u0300': '\\`',
  '\u0302': '\\^',
  '\u0308': '\\"',
  '\u0303': '\\~',
  '\u0327': '\\c',
  '\u030c': '\\v',
};
const SPECIAL: Record<string, string> = {
  '\\': '\\textbackslash{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
  '{': '\\{',
  '}': '\\}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
  '"': "''",
  '→': '$\\rightarrow$',
  '—': '---',
  '–': '--',
  '±': '$\\pm$',
  '×': '$\\times$',
  '…': '\\ldots{}',
  '\u00a0': '~',
  '’': "'",
  '‘': '`',
  '“': '``',
  '”': "''",
  // Math and symbols the report's text uses (a minus sign, Δ, sums, bounds...): math mode in the default fonts.
  '−': '$-$',
  '←': '$\\leftarrow$',
  '↔': '$\\leftrightarrow$',
  '⇒': '$\\Rightarrow$',
  '≤': '$\\le$',
  '≥': '$\\ge$',
  '≈': '$\\approx$',
  '≠': '$\\ne$',
  '·': '$\\cdot$',
  '•': '$\\bullet$',
  '°': '$^\\circ$',
  '∞': '$\\infty$',
  '√': '$\\surd$',
  '∈': '$\\in$',
  Δ: '$\\Delta$',
  Σ: '$\\Sigma$',
  α: '$\\alpha$',
  β: '$\\beta$',
  γ: '$\\gamma$',
  δ: '$\\delta$',
  ε: '$\\epsilon$',
  θ: '$\\theta$',
  λ: '$\\lambda$',
  μ: '$\\mu$',
  π: '$\\pi$',
  σ: '$\\sigma$',
  τ: '$\\tau$',
  χ: '$\\chi$',
  '§': '\\S{}',
  '¶': '\\P{}',
  '©': '\\copyright{}',
  '£': '\\pounds{}',
  '€': 'EUR',
  '✓': 'yes',
  '✗': 'no',
  ß: '{\\ss}',
  æ: '{\\ae}',
  Æ: '{\\AE}',
  ø: '{\\o}',
  Ø: '{\\O}',
  å: '{\\aa}',
  Å: '{\\AA}',
  œ: '{\\oe}',
  Œ: '{\\OE}',
  ł: '{\\l}',
  Ł: '{\\L}',
  '\u200b': '',
  '\u2009': '\\,',
  '\u202f': '\\,',
};

/**
 * Text as LaTeX that compiles with plain pdflatex (OT1, utf8 input): the ten specials escaped, a few
 * typographic characters mapped, accented Latin letters as accent macros, anything else as "?".
 */
export function texEscape(s: string): string {
  let out = '';
  let prev = ' ';
  for (const ch of s.normalize('NFC')) {
    // A straight double quote opens after a space or bracket, else closes; "--" stays two hyphens (no en dash ligature).
    const mapped = ch === '"' ? (/[\s([{]/.test(prev) ? '``' : "''") : ch === '-' && prev === '-' ? '{}-' : SPECIAL[ch];
    prev = ch;
    if (mapped !== undefined) out += mapped;
    else if (ch === '\n' || ch === '\r' || ch === '\t') out += ' ';
    else if (ch >= ' ' && ch <= '~') out += ch;
    else {
      const [base, ...marks] = [...ch.normalize('NFD')];
      const accent = marks.length === 1 ? ACCENTS[marks[0]] : undefined;
      out += accent && base && /^[A-Za-z]$/.test(base) ? `{${accent}${base === 'i' ? '\\i' : base}}` : '?';
    }
  }
  return out;
}

/** A token longer than this (a run id, a path, a URL) gets break points so it cannot overrun a line of a caption or a note. */
const LONG_TOKEN = 18;

/**
 * Text as LaTeX (texEscape) that may break inside long tokens: after / _ . - @ : , = and, in a run
 * of letters and digits longer than LONG_TOKEN, every 12 characters. (For captions and notes; a
 * table's cells break as wrappedText says.)
 */
export function texEscapeBreakable(s: string, long = LONG_TOKEN): string {
  return s
    .split(/(\s+)/)
    .map((tok) => {
      if (/^\s+$/.test(tok) || [...tok].length <= long) return texEscape(tok);
      // Words are left to TeX's hyphenation; a run with digits (a hash, an id) or past 20 characters is cut.
      const pieces = tok
        .split(/(?<=[/_.\-@:,=#])/)
        .flatMap((p) => (p.length > long && (/\d/.test(p) || p.length > 20) ? (p.match(/.{1,10}/gsu) ?? [p]) : [p]));
      return pieces.map(texEscape).join('\\allowbreak{}');
    })
    .join('');
}

/** Text with `code` spans (as the notes write commands) in typewriter type. */
export function texWithCode(s: string): string {
  return s
    .split(/(`[^`]+`)/)
    .map((part) => (/^`[^`]+`$/.test(part) ? `\\texttt{${texEscapeBreakable(part.slice(1, -1), 12)}}` : texEscapeBreakable(part)))
    .join('');
}
