// Writes the WebShop stand-in's pages (test/servers/webshop-site.ts) as a JSON list of HTML strings,
// the WebShop part of the inputs scripts/gen_bs4_differential.py runs through the real bs4.
// npx tsx scripts/dump-webshop-pages.ts > /tmp/webshop-pages.json
import {
  CATALOGUE,
  DEFAULT_GOAL,
  donePage,
  itemPage,
  resultsPage,
  searchProducts,
  siteInstruction,
  startPage,
  subPage,
} from '../test/servers/webshop-site.js';

const s = 'fixed_0';
const instr = siteInstruction(s);
const found = searchProducts(['citrus', 'soap']);
const pages = [
  startPage(s, instr),
  resultsPage(s, instr, 'citrus soap', 1, found.length ? found : CATALOGUE.slice(0, 5), 50),
  resultsPage(s, instr, 'x', 2, CATALOGUE.slice(0, 10), 10),
  ...CATALOGUE.slice(0, 4).map((p) => itemPage(s, instr, p, 'citrus soap', '1', [['scent', 'bright citrus']])),
  itemPage(s, instr, CATALOGUE[0], 'a', '1', []),
  ...['Description', 'Features', 'Reviews', 'Attributes'].map((sub) => subPage(s, instr, CATALOGUE[0], 'a', '1', sub)),
  donePage(s, DEFAULT_GOAL, instr, 'B000DEO001', [['scent', 'bright citrus']], 0.75),
  donePage(s, DEFAULT_GOAL, instr, 'B000DEO001', [], 0),
];
process.stdout.write(JSON.stringify(pages));
