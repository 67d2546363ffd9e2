// Table 2 labelling in the HTML report (paper §3.3; docs/protocol.md §1): the seeded sample of the
// label sheet (`report --label-sheet`), one trajectory at a time, a category per trajectory chosen with
// the keyboard or a click, and a download of the labels CSV `report --labels` reads (the sheet's
// columns, written as csv-stringify writes them). The page's CSP allows only scripts by hash: the
// script below is one (no inline handlers), and the file is a Blob download (no request).
import type { AnalysisLabel } from '../../benchmarks/types.js';
import { SHEET_COLUMNS } from '../error-tags.js';
import { labelSheetRows, type RunSample } from '../table2.js';
import { xmlEscape as esc } from '../svg.js';
import { FORMULA_START, NUMBER } from '../../util/csv.js';
import { BODIES_JS } from './bodies.js';
import type { MethodLabelOf } from '../names.js';

export interface LabellingRow {
  run: string;
  benchmark: string;
  method: string;
  idx: number;
  outcome: 'correct' | 'incorrect';
  question: string;
  gold: string;
  answer: string;
  auto_tags: string[];
  label_choices: string;
}

export interface LabellingData {
  /** The label sheet's columns, in order (the CSV's header). */
  columns: readonly string[];
  /** Each benchmark's categories, in table order (the keys 1..n pick them). */
  categories: Record<string, readonly AnalysisLabel[]>;
  /** The sampled trajectories, in the sheet's order; the trajectory text is the browser's episode text. */
  rows: LabellingRow[];
  /** Each sampled method's name as the tables write it (cot: CoT), for the page's sentences; rows keep the key (the CSV's). */
  methodLabels: Record<string, string>;
}

/** The page's labelling data from the report's Table 2 samples (null: nothing to label). */
export function labellingData(samples: readonly RunSample[], methodLabel: MethodLabelOf): LabellingData | null {
  const rows = labelSheetRows(samples, { trajectory: false });
  if (rows.length === 0) return null;
  const categories: Record<string, readonly AnalysisLabel[]> = {};
  const methodLabels: Record<string, string> = {};
  for (const s of samples) {
    categories[s.run.manifest.task] = s.analysis.categories;
    methodLabels[s.run.manifest.method] = methodLabel(s.run.manifest.task, s.run.manifest.method);
  }
  return {
    columns: SHEET_COLUMNS,
    categories,
    methodLabels,
    rows: rows.map((r) => ({
      run: r.run,
      benchmark: r.benchmark ?? '',
      method: r.method,
      idx: r.idx,
      outcome: r.outcome,
      question: r.question ?? '',
      gold: r.gold ?? '',
      answer: r.answer ?? '',
      auto_tags: r.auto_tags,
      label_choices: r.label_choices ?? '',
    })),
  };
}

/** The section's markup (filled by LABEL_JS). */
export function labellingSectionHtml(d: LabellingData): string {
  const cats = Object.entries(d.categories)
    .map(
      ([b, cs]) =>
        `<li><b>${esc(b)}</b>: ${cs.map((c, i) => `<kbd>${i + 1}</kbd> <code>${esc(c.key)}</code> ${esc(c.label)}`).join('; ')}</li>`,
    )
    .join('');
  return [
    '<section id="labelling" tabindex="0" aria-label="Label the Table 2 sample">',
    '<h2>Label Table 2</h2>',
    `<p class="meta">The error-analysis sample (paper §3.3): ${d.rows.length} trajectories, 50 correct and 50 incorrect per run at most (seeded, as <code>report --label-sheet</code> writes them). ` +
      'Give each one a category: success_* for a correct trajectory, failure_* for an incorrect one. ' +
      'Keys (with this section focused): <kbd>j</kbd> or <kbd>↓</kbd> next, <kbd>k</kbd> or <kbd>↑</kbd> previous, <kbd>1</kbd>–<kbd>6</kbd> the category of that number (then the next trajectory), <kbd>0</kbd> clear, <kbd>n</kbd> write a note. ' +
      "Labels are kept in this browser until you download them; the download is the labels CSV that <code>react-repro report RUNS --labels FILE</code> reads (the label sheet's columns).</p>",
    `<ul class="label-categories">${cats}</ul>`,
    '<p id="label-status" class="meta" aria-live="polite"></p>',
    '<div class="label-ui"><ol id="label-list"></ol><div id="label-detail"></div></div>',
    '<p><button id="label-download" type="button">Download labels CSV</button> <span id="label-message" class="meta" aria-live="polite"></span></p>',
    '</section>',
  ].join('\n');
}

// The detail's column may be narrower than its content (minmax(0, 1fr): the note field and a long
// token wrap or shrink, not widen the page); on a phone's window the list stands above the detail.
export const LABEL_CSS = `
#labelling:focus{outline:2px solid #4a7;outline-offset:4px}
.label-ui{display:grid;grid-template-columns:minmax(14rem,22rem) minmax(0,1fr);gap:1rem;align-items:start}
#label-list{max-height:70vh;overflow:auto;overflow-anchor:none;margin:0;padding-left:2.5rem;font-size:.85rem}
#label-list li{cursor:pointer;padding:.1rem .3rem;border-radius:3px;line-height:1.45;height:calc(1.45em + .2rem)}
#label-list li.spacer{list-style:none;padding:0;height:0}
#label-list li .line{display:flex;white-space:nowrap}
#label-list li .line>span:first-child{flex:0 1 auto;min-width:0;overflow:hidden;text-overflow:ellipsis}
#label-list li .lab{flex-shrink:0;padding-left:.25em}
#label-list li.current{background:#dde8ff}
#label-list li .lab{color:#666}
#label-list li.done .lab{color:#175c2a;font-weight:600}
#label-detail pre{white-space:pre-wrap;overflow-wrap:anywhere;max-height:50vh;overflow:auto;background:#f6f6f6;padding:.5rem}
#label-detail input{max-width:100%}
.label-buttons button{margin:.15rem;display:block;max-width:100%;text-align:left;overflow-wrap:anywhere}
.label-buttons button[aria-pressed="true"]{background:#175c2a;color:#fff}
.label-buttons button:disabled{opacity:.45}
.label-categories{font-size:.85rem}
@media (max-width:640px){.label-ui{grid-template-columns:minmax(0,1fr)}#label-list{max-height:40vh}}
`;

/** The labelling script (plain ES2017; every text from the data goes through textContent). */
export const LABEL_JS = String.raw`(function () {
  'use strict';
  var holder = document.getElementById('label-data');
  if (!holder) return;
  var L = JSON.parse(holder.textContent);
  var runIds = JSON.parse(document.getElementById('report-data').textContent).runs.map(function (r) { return r.id; });
  var rows = L.rows;
  var section = document.getElementById('labelling');
  var list = document.getElementById('label-list');
  var detail = document.getElementById('label-detail');
  var status = document.getElementById('label-status');
  var message = document.getElementById('label-message');
  ${BODIES_JS}
  // The sampled trajectories' texts, read from their blocks' bodies (render.ts episodeBlocks) when one
  // is shown or the CSV is made: each block's index (its last line) says which runs and items it
  // holds, and a sampled one's body is the k-th line of the block's decoded bodies.
  // The sample is looked up by run position and idx (wanted[run].has(idx)): only a sampled episode's id
  // is made as a string (a string for each of a million episodes took ~1.2 s at load; this, ~0.1 s).
  var textOf = {};
  var runsOf = Object.create(null), wanted = [], i, j;
  for (i = 0; i < runIds.length; i++) (runsOf[runIds[i]] || (runsOf[runIds[i]] = [])).push(i);
  for (i = 0; i < rows.length; i++) {
    var at = runsOf[rows[i].run] || [];
    for (j = 0; j < at.length; j++) (wanted[at[j]] || (wanted[at[j]] = new Set())).add(rows[i].idx);
  }
  var blockOfId = {}, sampled = [];
  (function () {
    var blocks = document.querySelectorAll('script.episode-block');
    for (var b = 0; b < blocks.length; b++) {
      var head = blockIndex(blocks[b]), runAt = [], idxAt = [];
      expandIndex(head, runAt, idxAt, 0);
      for (var k = 0; k < head.n; k++) {
        var w = wanted[runAt[k]];
        if (!w || !w.has(idxAt[k])) continue;
        var id = runIds[runAt[k]] + '\u0000' + idxAt[k];
        if (!sampled[b]) sampled[b] = [];
        sampled[b].push([k, id]);
        blockOfId[id] = b;
      }
    }
  })();
  var bodyEls = document.querySelectorAll('script.episode-bodies'), loading = [];
  /** Block b's sampled texts into textOf (once; the decode shared by whoever asks meanwhile). */
  function loadBlock(b) {
    if (!loading[b]) {
      loading[b] = decodeBodies(bodyEls[b]).then(function (lines) {
        sampled[b].forEach(function (s) { textOf[s[1]] = JSON.parse(lines[s[0]]).text; });
      });
      // a failed decode is tried again the next time it is asked for
      loading[b].then(null, function () { delete loading[b]; });
    }
    return loading[b];
  }
  /**
   * Every sampled text, a block at a time (onBlock told how many blocks are read); resolves with how
   * many blocks could not be read (their rows' trajectories stay empty: the labels still leave the page).
   */
  function loadAll(onBlock) {
    var todo = [];
    sampled.forEach(function (s, b) { if (s) todo.push(b); });
    var done = 0, failed = 0;
    return todo.reduce(function (p, b) {
      return p.then(function () { return loadBlock(b).then(null, function () { failed++; }); }).then(function () { onBlock(++done, todo.length); });
    }, Promise.resolve()).then(function () { return failed; });
  }
  var STORE = 'react-repro-label\u0000';
  function key(r) { return STORE + r.run + '\u0000' + r.idx; }
  function load(r) {
    try { var v = JSON.parse(window.localStorage.getItem(key(r)) || 'null'); return v && typeof v === 'object' ? v : null; } catch (e) { return null; }
  }
  function save(r) {
    try { window.localStorage.setItem(key(r), JSON.stringify({ label: r.label, note: r.note })); } catch (e) { /* storage off: labels live until the page closes */ }
  }
  function fitsOutcome(k, r) { return (k.indexOf('success_') === 0) === (r.outcome === 'correct'); }
  // The row's own choices (its method's categories for its outcome, as the sheet lists them).
  function fits(k, r) { return fitsOutcome(k, r) && (!r.label_choices || r.label_choices.split(' | ').indexOf(k) >= 0); }
  rows.forEach(function (r) {
    var s = load(r);
    var cats = (L.categories[r.benchmark] || []).map(function (c) { return c.key; });
    r.label = s && typeof s.label === 'string' && cats.indexOf(s.label) >= 0 && fits(s.label, r) ? s.label : '';
    r.note = s && typeof s.note === 'string' ? s.note : '';
  });
  var cur = 0;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // The method as the tables name it, with its article: "a CoT", "an Act".
  function aMethod(r) {
    var name = (L.methodLabels && L.methodLabels[r.method]) || r.method;
    return (/^[aeiou]/i.test(name) ? 'an ' : 'a ') + name;
  }
  function itemText(r) { return r.method + ' #' + r.idx + ' ' + r.outcome + ' — '; }

  // The list is virtualised as the trajectory browser's episode list is (client.ts): only the rows in
  // view and OVERSCAN on either side are in the document, between two spacer items as tall as the rows
  // above and below them, so a million-episode report's sample (57,200 trajectories) is a few dozen
  // items, not 57,200 that every frame of the page lays out. Every row is one line of one height
  // (LABEL_CSS), so row i starts at i * ROW. Not scaled as client.ts's list is: 57,200 rows at ~23 px
  // are ~1.3 million px, far under the tallest element browsers lay out (~33.5 million px in Chromium,
  // ~17.9 million in Firefox), which only a sample of ~750,000 trajectories (7,500 runs) would reach.
  var ROW = 23, OVERSCAN = 10;
  // Room for the largest row number the list shows ("57200."), outside markers being left of the item.
  list.style.paddingLeft = 'max(2.5rem, ' + (String(rows.length).length + 2) + 'ch)';
  // The rows drawn: [start, end) and their items by row.
  var drawn = { start: 0, end: 0 }, nodes = {};
  var above = el('li', 'spacer'), below = el('li', 'spacer');
  above.setAttribute('aria-hidden', 'true');
  below.setAttribute('aria-hidden', 'true');
  list.appendChild(above);
  list.appendChild(below);
  function windowOf() {
    // Before its first rows the list is empty (no height): the window's height stands for its own.
    var top = list.scrollTop, view = list.clientHeight || window.innerHeight;
    return {
      start: Math.max(0, Math.floor(top / ROW) - OVERSCAN),
      end: Math.min(rows.length, Math.ceil((top + view) / ROW) + OVERSCAN),
    };
  }
  function paint(li, i) {
    var r = rows[i];
    li.className = (i === cur ? 'current ' : '') + (r.label ? 'done' : '');
    li.firstChild.lastChild.textContent = r.label || 'not labelled';
    li.dataset.label = r.label;
  }
  function paintItem(i) { if (nodes[i]) paint(nodes[i], i); }
  function itemNode(i) {
    var li = el('li');
    // The list's own number of the row, as if every row before it were in the document.
    li.value = i + 1;
    li.dataset.index = String(i);
    li.setAttribute('aria-posinset', String(i + 1));
    li.setAttribute('aria-setsize', String(rows.length));
    // The row's one line, in a box of its own: the item clipping it would clip its number too.
    var line = el('span', 'line');
    line.appendChild(el('span', null, itemText(rows[i])));
    line.appendChild(el('span', 'lab'));
    li.appendChild(line);
    paint(li, i);
    return li;
  }
  // Draws the rows in view; rows still in view stay the same items (a scroll adds and removes rows
  // at the edges).
  function layout() {
    var w = windowOf(), keep = list.scrollTop, next = {}, i;
    above.style.height = w.start * ROW + 'px';
    below.style.height = (rows.length - w.end) * ROW + 'px';
    for (i = w.start; i < w.end; i++) next[i] = nodes[i] || itemNode(i);
    Object.keys(nodes).forEach(function (k) {
      if (next[k] === nodes[k]) return;
      // Unwatched first: a watched row taken out (its size then 0) during the observer's callback
      // is a "ResizeObserver loop" error.
      if (nodes[k] === watched) { sizeWatch.unobserve(watched); watched = null; }
      list.removeChild(nodes[k]);
    });
    var ref = above.nextSibling;
    for (i = w.start; i < w.end; i++) {
      if (next[i] === ref) ref = ref.nextSibling;
      else list.insertBefore(next[i], ref);
    }
    nodes = next;
    drawn = w;
    if (list.scrollTop !== keep) list.scrollTop = keep;
    noteScroll();
    measure();
  }
  // ROW is the first row drawn's exact height (offsetHeight is rounded: a fraction of a px a row adds
  // up over a long list), measured again after every redraw (a list hidden at load, a zoom change it)
  // and when that row's size changes (a text-only zoom resizes rows without a resize or a scroll
  // event). Only then: the drawn rows are near the view, and a row a million px away measures in
  // coarser steps (22.875 for 22.90625 px in Chromium), which would misplace every row after it.
  // Which row is watched changes between frames (watchFirst): a row first watched during the
  // observer's own callback is reported a frame late, with a "ResizeObserver loop" error event.
  var watched = null, watchDue = false;
  var sizeWatch = typeof ResizeObserver === 'function' ? new ResizeObserver(function () { requestAnimationFrame(measure); }) : null;
  function watchFirst() {
    watchDue = false;
    var first = nodes[drawn.start] || null;
    if (first === watched) return;
    if (watched) sizeWatch.unobserve(watched);
    watched = first;
    if (first) sizeWatch.observe(first);
  }
  function measure() {
    var first = nodes[drawn.start];
    if (!first) return;
    if (sizeWatch && first !== watched && !watchDue) {
      watchDue = true;
      requestAnimationFrame(watchFirst);
    }
    var h = first.getBoundingClientRect().height;
    if (!(h > 0) || h === ROW) return;
    // The list's height follows at once and the view keeps its row, or the end: scrolled by the old
    // height, a view far down would be past the list's new end, with no row to draw. The end is the
    // end of the list as drawn, every row at the old height: the rows drawn, grown since, make the
    // list taller than that; shrunk, they made it shorter, and a view within that of the end was
    // brought back to the new end: its place is the scroll last seen before that (noteScroll).
    var drawnHeight = rows.length * ROW, shorter = list.scrollHeight < drawnHeight - 1;
    var top = shorter ? seen : list.scrollTop;
    var atEnd = top > 0 && top >= (shorter ? drawnHeight : Math.min(list.scrollHeight, drawnHeight)) - list.clientHeight - 1;
    var at = top / ROW;
    ROW = h;
    above.style.height = drawn.start * ROW + 'px';
    below.style.height = (rows.length - drawn.end) * ROW + 'px';
    list.scrollTop = atEnd ? list.scrollHeight : at * ROW;
    layout();
  }
  // The scroll position (measure) while the list is as tall as its rows at ROW. While it is shorter
  // (rows shrank: a text-only zoom out not yet measured), only on a scroll event (byScroll): the
  // browser pulls a view that was past the new end back to it and scrolls nothing else, so a scroll
  // since is the user's, counted by its own distance from there, or to the end. Not after a layout:
  // rows drawn at their new heights move the end away again. seenTop: where seen was noted.
  var seen = 0, seenTop = 0;
  function noteScroll(byScroll) {
    var top = list.scrollTop, end = list.scrollHeight - list.clientHeight;
    if (list.scrollHeight >= rows.length * ROW - 1) seen = top;
    else if (!byScroll) return;
    else if (top >= end - 1 && seenTop < end - 1) seen = rows.length * ROW - list.clientHeight;
    else seen += top - Math.min(seenTop, end);
    seenTop = top;
  }
  function relayout() {
    noteScroll(true);
    var w = windowOf();
    if (w.start !== drawn.start || w.end !== drawn.end) layout();
  }
  /**
   * Row i scrolled into the list's view as scrollIntoView({ block: 'nearest' }) would, by the list's
   * scrollTop (its item may not be in the document yet); then, drawn, into the page's view.
   */
  function reveal(i) {
    var top = i * ROW, view = list.clientHeight;
    if (top < list.scrollTop) list.scrollTop = top;
    else if (top + ROW > list.scrollTop + view) list.scrollTop = top + ROW - view;
    layout();
    if (nodes[i]) nodes[i].scrollIntoView({ block: 'nearest' });
  }
  list.addEventListener('scroll', relayout);
  window.addEventListener('resize', relayout);
  // One listener for every row, drawn or not yet.
  list.addEventListener('click', function (ev) {
    var li = ev.target && ev.target.closest ? ev.target.closest('li') : null;
    if (!li || li.parentNode !== list || li.classList.contains('spacer')) return;
    select(Number(li.dataset.index));
    section.focus();
  });
  function paintStatus() {
    var n = rows.filter(function (r) { return r.label; }).length;
    status.textContent = n + ' of ' + rows.length + ' labelled · trajectory ' + (cur + 1) + ' of ' + rows.length;
    status.dataset.labelled = String(n);
  }
  function kv(parent, k, v) {
    var row = el('div', 'kv');
    row.appendChild(el('span', 'k', k));
    row.appendChild(el('span', 'v', v));
    parent.appendChild(row);
  }
  function paintDetail() {
    var r = rows[cur];
    detail.textContent = '';
    detail.dataset.index = String(cur);
    detail.appendChild(el('h3', null, (cur + 1) + ' of ' + rows.length + ': ' + r.benchmark + ' / ' + r.method + ' #' + r.idx + ' (' + r.outcome + ')'));
    kv(detail, 'Run', r.run);
    kv(detail, 'Question', r.question);
    kv(detail, 'Answer', r.answer || '—');
    kv(detail, 'Gold', r.gold || '—');
    kv(detail, 'Automatic tags', r.auto_tags.join(', ') || '—');
    var buttons = el('div', 'label-buttons');
    (L.categories[r.benchmark] || []).forEach(function (c, k) {
      var b = el('button', null, (k + 1) + '  ' + c.key + ' — ' + c.label);
      b.type = 'button';
      b.dataset.key = c.key;
      b.disabled = !fits(c.key, r);
      b.setAttribute('aria-pressed', r.label === c.key ? 'true' : 'false');
      b.addEventListener('click', function () { setLabel(c.key); });
      buttons.appendChild(b);
    });
    var clear = el('button', null, '0  clear');
    clear.type = 'button';
    clear.addEventListener('click', function () { setLabel(''); });
    buttons.appendChild(clear);
    detail.appendChild(buttons);
    var noteLabel = el('label', null, 'Note ');
    var note = el('input');
    note.id = 'label-note';
    note.type = 'text';
    note.size = 60;
    note.value = r.note;
    note.addEventListener('input', function () { r.note = note.value; save(r); });
    note.addEventListener('keydown', function (ev) { if (ev.key === 'Escape' || ev.key === 'Enter') { ev.preventDefault(); section.focus(); } });
    noteLabel.appendChild(note);
    detail.appendChild(noteLabel);
    detail.appendChild(trajectory(r));
  }
  // The row's text, "Loading…" until its block is decoded.
  function trajectory(r) {
    var id = r.run + '\u0000' + r.idx, pre = el('pre', 'label-trajectory');
    if (textOf[id] !== undefined || blockOfId[id] === undefined) { pre.textContent = textOf[id] || ''; return pre; }
    pre.textContent = 'Loading…';
    pre.dataset.loading = '1';
    loadBlock(blockOfId[id]).then(function () {
      pre.textContent = textOf[id] || '';
      delete pre.dataset.loading;
    }, function (err) { pre.textContent = 'This trajectory could not be decoded: ' + err; });
    return pre;
  }
  function select(i, quiet) {
    var prev = cur;
    cur = Math.max(0, Math.min(rows.length - 1, i));
    paintItem(prev);
    paintItem(cur);
    paintDetail();
    paintStatus();
    if (!quiet) reveal(cur);
  }
  function say(t) { message.textContent = t; }
  function setLabel(k) {
    var r = rows[cur];
    if (k && !fitsOutcome(k, r)) { say(k + ' does not fit a' + (r.outcome === 'correct' ? ' correct' : 'n incorrect') + ' trajectory'); return; }
    if (k && !fits(k, r)) { say(k + ' does not apply to ' + aMethod(r) + ' trajectory'); return; }
    r.label = k;
    save(r);
    say('');
    paintItem(cur);
    if (k && cur < rows.length - 1) select(cur + 1); else { paintDetail(); paintStatus(); }
  }
  section.addEventListener('keydown', function (ev) {
    var t = ev.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    var k = ev.key;
    if (k === 'j' || k === 'ArrowDown') select(cur + 1);
    else if (k === 'k' || k === 'ArrowUp') select(cur - 1);
    else if (k === '0' || k === 'Backspace' || k === 'Delete') setLabel('');
    else if (k === 'n') { var note = document.getElementById('label-note'); if (note) note.focus(); }
    else if (/^[1-9]$/.test(k)) {
      var c = (L.categories[rows[cur].benchmark] || [])[Number(k) - 1];
      if (!c) return;
      setLabel(c.key);
    } else return;
    ev.preventDefault();
  });
  // RFC 4180 as csv-stringify writes it: quoted only when a field holds a comma, a quote or a line end;
  // a cell a spreadsheet would evaluate gets a leading ' and is quoted, as src/util/csv.ts does.
  var FORMULA = new RegExp(${JSON.stringify(FORMULA_START.source)});
  var NUMERIC = new RegExp(${JSON.stringify(NUMBER.source)});
  function field(v) {
    var s = v === null || v === undefined ? '' : String(v);
    if (FORMULA.test(s) && !NUMERIC.test(s)) return '"' + ("'" + s).replace(/"/g, '""') + '"';
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }
  function csv() {
    var lines = [L.columns.map(field).join(',')];
    rows.forEach(function (r) {
      var values = { trajectory: textOf[r.run + '\u0000' + r.idx] || '', auto_tags: r.auto_tags.join(';'), idx: String(r.idx) };
      lines.push(L.columns.map(function (c) { return field(Object.prototype.hasOwnProperty.call(values, c) ? values[c] : r[c]); }).join(','));
    });
    return lines.join('\n') + '\n';
  }
  var downloadButton = document.getElementById('label-download');
  downloadButton.addEventListener('click', function () {
    // The CSV holds every sampled trajectory: their blocks decoded first (most are, after the first time).
    downloadButton.disabled = true;
    loadAll(function (done, all) { say('Reading trajectories… ' + done + ' of ' + all + ' blocks'); }).then(download, function (err) {
      say('Could not read the trajectories: ' + err);
    }).then(function () { downloadButton.disabled = false; });
  });
  function download(failed) {
    var blob = new Blob([csv()], { type: 'text/csv;charset=utf-8' });
    var a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = 'labels.csv';
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
    var n = rows.filter(function (r) { return r.label; }).length;
    say('labels.csv: ' + n + ' of ' + rows.length + ' labelled; then: react-repro report RUNS --labels labels.csv' +
      (failed ? ' (' + failed + ' block' + (failed === 1 ? '' : 's') + ' of trajectories could not be read: those rows have no trajectory text)' : ''));
  }
  layout();
  select(0, true);
  section.dataset.ready = '1';
})();`;
