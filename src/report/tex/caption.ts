// A float's caption is short: the title without its own "Table N:", which LaTeX numbers (README "Reports").

/**
 * A caption without the number the title carries ("Table 1: HotpotQA and FEVER"): LaTeX numbers its
 * floats itself, so a paper shows one number. Which of the ReAct paper's tables or figures it
 * reproduces is said after the text ("HotpotQA and FEVER (as ReAct's Table 1)").
 */
export function captionText(title: string): string {
  const m = /^\s*(Table|Figure)\s+(\d+[a-z]?)\s*(?:\(([^)]*)\))?\s*[:.]?\s*/i.exec(title);
  if (!m) return title.trim();
  const rest = [m[3], title.slice(m[0].length).trim()].filter(Boolean).join(': ');
  const text = rest ? rest[0].toUpperCase() + rest.slice(1) : `${m[1]} ${m[2]}`;
  return `${text} (as ReAct's ${m[1][0].toUpperCase()}${m[1].slice(1).toLowerCase()} ${m[2]})`;
}
