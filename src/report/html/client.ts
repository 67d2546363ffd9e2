// The trajectory browser's script, inlined into the report. Plain ES2017 in a string (no build step,
// nothing for a bundler to rename). Every piece of run data reaches the page through textContent or
// option.text: no innerHTML, no attribute built from data except `value` and `data-*` set as properties.
// The episode list is virtualised: only the rows in view (and a few around them) are in the document,
// between two spacers that stand for the rest, so a sweep of hundreds of thousands of episodes scrolls
// as one list; a closed row has one fixed height, an open one is measured. A list taller than MAX_PX
// (a million rows at 34 px is ~34 million px, past the element height browsers lay out: ~33.5
// million in Chromium, ~17.9 million in Firefox) is drawn MAX_PX tall and its scroll position scaled
// onto the full height, so every row, the last included, is reached by scrolling.
import { BODIES_JS } from './bodies.js';

export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var runs = JSON.parse(document.getElementById('report-data').textContent).runs;
  var OUTCOMES = ['correct', 'incorrect', 'error'];
  var CODE = { c: 0, i: 1, e: 2 };
  // The episode blocks (render.ts episodeBlocks): a block's row lines then its index, and beside it
  // the block's bodies, compressed. Only the indexes are read here, into typed arrays over all
  // episodes (a million episodes are a few MB and no object each); a row is parsed from its line
  // when it is drawn, a block's bodies decoded when one of them is opened or a search reaches it.
  var blockEls = document.querySelectorAll('script.episode-block');
  var bodyEls = document.querySelectorAll('script.episode-bodies');
  var nBlocks = blockEls.length;
  var firsts = new Int32Array(nBlocks + 1);
  var nEpisodes = 0;
  ${BODIES_JS}
  var heads = Array.prototype.map.call(blockEls, function (block, b) {
    var head = blockIndex(block);
    firsts[b] = nEpisodes;
    nEpisodes += head.n;
    return head;
  });
  firsts[nBlocks] = nEpisodes;
  var runOf = new Int32Array(nEpisodes);
  var idxOf = new Float64Array(nEpisodes);
  var outcomeOf = new Uint8Array(nEpisodes);
  var setOf = new Int32Array(nEpisodes);
  // Every distinct tag list once (sets[0] is the empty one); an episode holds its list's position.
  var sets = [[]];
  var setAt = Object.create(null);
  setAt['[]'] = 0;
  heads.forEach(function (h, b) {
    var k;
    expandIndex(h, runOf, idxOf, firsts[b]);
    var local = h.sets.map(function (s) {
      var key = JSON.stringify(s);
      if (setAt[key] === undefined) { setAt[key] = sets.length; sets.push(s); }
      return setAt[key];
    });
    for (k = 0; k < h.n; k++) {
      outcomeOf[firsts[b] + k] = CODE[h.outcome.charAt(k)];
      setOf[firsts[b] + k] = local[h.tags[k]];
    }
  });
  heads = null;

  function blockOf(i) {
    var lo = 0, hi = nBlocks - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (firsts[mid] <= i) lo = mid; else hi = mid - 1;
    }
    return lo;
  }
  // Where each line of a block ends, found on the block's first read (its n row lines before the index).
  var lineEnds = [];
  function lineOf(b, k) {
    var text = blockEls[b].textContent;
    var ends = lineEnds[b];
    if (!ends) {
      var n = firsts[b + 1] - firsts[b], at = -1;
      ends = lineEnds[b] = new Int32Array(n);
      for (var j = 0; j < n; j++) { at = text.indexOf('\n', at + 1); ends[j] = at; }
    }
    return text.slice(k === 0 ? 0 : ends[k - 1] + 1, ends[k]);
  }
  function rowLine(i) {
    var b = blockOf(i);
    return JSON.parse(lineOf(b, i - firsts[b]));
  }

  // Decoded blocks' body lines: the last BODY_CACHE blocks used (a block's bodies are about a MB of
  // text: the blocks of the episodes being read, not the page's), and the decodes under way, so a
  // block opened and searched at once is decoded once.
  var BODY_CACHE = 4, bodyCache = [], decoding = [];
  function cachedLines(b) {
    for (var k = 0; k < bodyCache.length; k++) {
      if (bodyCache[k].b === b) {
        var hit = bodyCache.splice(k, 1)[0];
        bodyCache.push(hit);
        return hit.lines;
      }
    }
    return null;
  }
  function bodyLines(b) {
    var lines = cachedLines(b);
    if (lines) return Promise.resolve(lines);
    if (!decoding[b]) {
      decoding[b] = decodeBodies(bodyEls[b]).then(function (ls) {
        bodyCache.push({ b: b, lines: ls });
        if (bodyCache.length > BODY_CACHE) bodyCache.shift();
        return ls;
      });
      decoding[b].then(function () { delete decoding[b]; }, function () { delete decoding[b]; });
    }
    return decoding[b];
  }

  // An episode's summary as the list shows it, made when its row is drawn (the last few thousand kept).
  var summaries = {}, nSummaries = 0;
  function episodeAt(i) {
    var e = summaries[i];
    if (!e) {
      if (nSummaries >= 5000) { summaries = {}; nSummaries = 0; }
      var row = rowLine(i);
      e = summaries[i] = { run: runOf[i], idx: idxOf[i], outcome: OUTCOMES[outcomeOf[i]], tags: sets[setOf[i]], item: row[0], answer: row[1], gold: row[2], metrics: row[3] };
      nSummaries++;
    }
    return e;
  }
  // Opened episodes' bodies, parsed from their block's line (data-decoded: how many).
  var bodies = {};
  var decoded = 0;
  function parsedBody(i, lines) {
    if (!bodies[i]) {
      bodies[i] = JSON.parse(lines[i - firsts[blockOf(i)]]);
      decoded++;
      document.body.dataset.decoded = String(decoded);
    }
    return bodies[i];
  }
  /** The body at once when it is parsed or its block decoded, else null. */
  function bodyNow(i) {
    if (bodies[i]) return bodies[i];
    var lines = cachedLines(blockOf(i));
    return lines ? parsedBody(i, lines) : null;
  }
  function bodyOf(i) {
    var x = bodyNow(i);
    if (x) return Promise.resolve(x);
    return bodyLines(blockOf(i)).then(function (lines) { return parsedBody(i, lines); });
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function uniq(xs) {
    var seen = {}, out = [];
    xs.forEach(function (x) { if (!Object.prototype.hasOwnProperty.call(seen, x)) { seen[x] = 1; out.push(x); } });
    return out.sort();
  }
  function fill(select, values, allLabel) {
    var o = el('option', null, allLabel);
    o.value = '';
    select.appendChild(o);
    values.forEach(function (v) { var opt = el('option', null, v); opt.value = v; select.appendChild(opt); });
  }
  function fmt(v) { return typeof v === 'number' && isFinite(v) ? (Math.round(v * 1000) / 1000).toString() : '—'; }

  var fBench = document.getElementById('filter-benchmark');
  var fMethod = document.getElementById('filter-method');
  var fOutcome = document.getElementById('filter-outcome');
  var fTag = document.getElementById('filter-tag');
  var fSearch = document.getElementById('filter-search');
  var list = document.getElementById('episode-list');
  var count = document.getElementById('episode-count');

  fill(fBench, uniq(runs.map(function (r) { return r.benchmark; })), 'all benchmarks');
  fill(fMethod, uniq(runs.map(function (r) { return r.method; })), 'all methods');
  var allTags = [];
  sets.forEach(function (s) { s.forEach(function (t) { allTags.push(t); }); });
  fill(fTag, uniq(allTags), 'all tags');

  // Search reads a block's rows and (decoded) bodies into one lower-cased text, its episodes' texts
  // joined by '\n' (no match of a query without one spans two episodes), with where each episode
  // starts. The texts are kept for the next search while they fit in HAY_MAX characters (past that, a
  // page's text held twice), else made again.
  var HAY_MAX = 200000000, hayChars = 0, hays = [];
  function hayOf(b, lines) {
    var first = firsts[b], n = firsts[b + 1] - first, parts = new Array(n), starts = new Int32Array(n + 1), at = 0;
    for (var k = 0; k < n; k++) {
      var row = JSON.parse(lineOf(b, k)), body = JSON.parse(lines[k]);
      parts[k] = [row[0], body.input, row[1] || '', row[2] || '', body.text, body.error || '', sets[setOf[first + k]].join(' ')].join('\n').toLowerCase();
      starts[k] = at;
      at += parts[k].length + 1;
    }
    starts[n] = at;
    var hay = { text: parts.join('\n'), starts: starts };
    if (hayChars + hay.text.length <= HAY_MAX) { hays[b] = hay; hayChars += hay.text.length; }
    return hay;
  }
  function searchBlock(b, hay, q, into) {
    var s = hay.starts, at = hay.text.indexOf(q);
    while (at >= 0) {
      var lo = 0, hi = s.length - 2;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (s[mid] <= at) lo = mid; else hi = mid - 1;
      }
      if (at + q.length < s[lo + 1]) {
        into[firsts[b] + lo] = 1;
        at = hay.text.indexOf(q, s[lo + 1]);
      } else at = hay.text.indexOf(q, at + 1);
    }
  }
  // The last finished search (its query and which episodes match), and the one under way: it reads
  // blocks for ~40 ms at a time, saying how far it is, then lets the page draw and take input. A block
  // whose texts are not kept waits for its bodies' decode; a newer query (job replaced) stops it at its
  // next block, before it marks anything. How far it is shows at its first wait for a decode or the end
  // of its first slice, then at most every SHOW_MS: each change of the page costs a frame, and a
  // million-episode page's frames cost more than the search's own work (shown before every decode,
  // 5 × its time; every slice, 3 ×).
  var query = '', found = null, job = null, SHOW_MS = 500;
  function search(q) {
    var me = job = { q: q, b: 0, found: new Uint8Array(nEpisodes) }, t0 = Date.now(), shownAt = 0;
    function progress() {
      if (shownAt && Date.now() - shownAt < SHOW_MS) return;
      count.textContent = 'Searching… ' + firsts[me.b] + ' of ' + nEpisodes + ' episodes read';
      delete count.dataset.count;
      shownAt = Date.now();
    }
    function step() {
      t0 = Date.now();
      next();
    }
    function next() {
      if (job !== me) return;
      while (me.b < nBlocks) {
        if (Date.now() - t0 >= 40) { progress(); setTimeout(step, 0); return; }
        if (!hays[me.b]) {
          if (!shownAt) progress();
          bodyLines(me.b).then(read, failed);
          return;
        }
        searchBlock(me.b, hays[me.b], q, me.found);
        me.b++;
      }
      job = null;
      query = q;
      found = me.found;
      render();
    }
    function read(lines) {
      if (job !== me) return;
      searchBlock(me.b, hayOf(me.b, lines), q, me.found);
      me.b++;
      next();
    }
    function failed(err) {
      if (job !== me) return;
      job = null;
      count.textContent = 'Search stopped: episodes ' + firsts[me.b] + '–' + (firsts[me.b + 1] - 1) + ' could not be decoded (' + err + ')';
    }
    next();
  }
  // A filter or the search changed: the list drawn again, once the search has read every episode.
  function update() {
    var q = fSearch.value.trim().toLowerCase();
    if (q && job && job.q === q) return;
    job = null;
    if (q && !(q === query && found)) search(q);
    else render();
  }

  function kv(parent, label, value, cls) {
    var row = el('div', 'kv' + (cls ? ' ' + cls : ''));
    row.appendChild(el('span', 'k', label));
    row.appendChild(el('span', 'v', value));
    parent.appendChild(row);
  }

  function episodeBody(e, i, x) {
    var run = runs[e.run];
    var body = el('div', 'episode-body');
    kv(body, 'Run', run.id + ' · ' + run.benchmark + ' · ' + run.method + ' · ' + run.split + ' · ' + run.model);
    kv(body, 'Input', x.input);
    kv(body, 'Answer', e.answer === null ? '—' : e.answer);
    kv(body, 'Gold', e.gold === null ? '—' : e.gold);
    kv(body, 'Scores', Object.keys(e.metrics).map(function (k) { return k + ' ' + fmt(e.metrics[k]); }).join(' · ') || '—');
    if (x.error) kv(body, 'Error', x.error, 'error');
    if (e.tags.length) kv(body, 'Tags', e.tags.join(', '));
    if (x.steps.length) {
      var ol = el('ol', 'steps');
      x.steps.forEach(function (s) {
        var li = el('li', 'step');
        li.appendChild(el('div', 'step-no', 'Step ' + s.step));
        if (s.thought !== null) { var t = el('div', 'thought'); t.appendChild(el('b', null, 'Thought ')); t.appendChild(el('span', null, s.thought)); li.appendChild(t); }
        var a = el('div', 'action'); a.appendChild(el('b', null, 'Action ')); a.appendChild(el('code', null, s.action)); li.appendChild(a);
        var o = el('div', 'observation'); o.appendChild(el('b', null, 'Observation ')); o.appendChild(el('span', null, s.observation)); li.appendChild(o);
        ol.appendChild(li);
      });
      body.appendChild(ol);
    }
    var raw = el('details', 'raw');
    raw.appendChild(el('summary', null, x.steps.length ? 'Episode text (after the prompt)' : 'Episode text (after the prompt): the completion'));
    raw.appendChild(el('pre', null, x.text));
    if (!x.steps.length) raw.open = true;
    body.appendChild(raw);
    var keys = Object.keys(x.extras);
    if (keys.length) {
      var ex = el('details', 'extras');
      ex.appendChild(el('summary', null, 'Other fields: ' + keys.join(', ')));
      ex.appendChild(el('pre', null, JSON.stringify(x.extras, null, 2)));
      body.appendChild(ex);
    }
    return body;
  }
  // An opened row's body: at once when its block is decoded, else "Loading…" until it is.
  function fillBody(d, e, i) {
    var x = bodyNow(i);
    if (x) { d.appendChild(episodeBody(e, i, x)); return; }
    var wait = el('div', 'episode-body loading', 'Loading…');
    d.appendChild(wait);
    bodyOf(i).then(function (y) { d.replaceChild(episodeBody(e, i, y), wait); }, function (err) {
      wait.textContent = 'This episode could not be decoded: ' + err;
    });
  }

  // Open rows: their node (kept while open, so scrolling away and back keeps what was read) and height.
  var openNodes = {};
  var openHeights = {};
  // The first closed row drawn, watched for a change of the closed rows' height (a text-only zoom
  // resizes them without a resize or a scroll event). Which row is watched changes between frames
  // (watchProbe): a row first watched during the observer's own callback (a layout there) is reported
  // a frame late, with a "ResizeObserver loop" error event.
  var rowProbe = null, probeDue = false;
  function watchProbe() {
    probeDue = false;
    var probe = null;
    for (var n = topSpacer.nextSibling; n && n !== bottomSpacer && !probe; n = n.nextSibling) if (!n.open) probe = n;
    if (probe === rowProbe) return;
    if (rowProbe && !openNodes[rowProbe.dataset.episode]) resize.unobserve(rowProbe);
    rowProbe = probe;
    if (probe) resize.observe(probe);
  }
  // Heights the observer measured, drawn in the next frame (resized): open rows' pitches by episode,
  // and the closed rows' pitch.
  var due = null;
  var resize = typeof ResizeObserver === 'function' ? new ResizeObserver(function (entries) {
    var heights = {}, row = due ? due.row : ROW, pitch = row;
    entries.forEach(function (en) {
      var t = en.target, i = t.dataset.episode;
      if (!(t.offsetHeight > 0)) return;
      // A row closed before its toggle event (a busy browser may draw first) is left to that event:
      // taken up here, the view would be kept inside the row's gone body, on its last px.
      if (openNodes[i] === t) { if (t.open) heights[i] = pitchOf(t); }
      else if (t === rowProbe && !t.open) pitch = pitchOf(t);
    });
    if (Math.abs(pitch - row) <= 0.01) pitch = row;
    if (pitch === row && !Object.keys(heights).length) return;
    // Drawn in the next frame, not in the callback: a layout here takes watched rows out of the list
    // or puts them back, which is a "ResizeObserver loop" error event.
    if (!due) {
      due = { open: {}, row: row };
      requestAnimationFrame(resized);
    }
    due.row = pitch;
    Object.keys(heights).forEach(function (i) { due.open[i] = heights[i]; });
  }) : null;
  /**
   * Takes up the heights measured and draws them, the view kept in its place. The place is read here,
   * not in the observer's callback: a scroll in between moves it (the list is drawn with the old
   * heights until now).
   */
  function resized() {
    var d = due, at = viewPlace();
    due = null;
    ROW = d.row;
    Object.keys(d.open).forEach(function (i) { if (openNodes[i]) openHeights[i] = d.open[i]; });
    keepPlace(at);
  }

  function episodeNode(e, i) {
    if (openNodes[i]) return openNodes[i];
    var run = runs[e.run];
    var d = el('details', 'episode ' + e.outcome);
    d.dataset.outcome = e.outcome;
    d.dataset.method = run.method;
    d.dataset.benchmark = run.benchmark;
    d.dataset.episode = String(i);
    var s = el('summary');
    s.appendChild(el('span', 'badge ' + e.outcome, e.outcome));
    s.appendChild(el('span', 'where', run.benchmark + ' / ' + run.method + ' #' + e.idx));
    s.appendChild(el('span', 'item', e.item.length > 140 ? e.item.slice(0, 140) + '…' : e.item));
    if (e.answer !== null || e.gold !== null) s.appendChild(el('span', 'ans', (e.answer === null ? '—' : e.answer) + ' | gold ' + (e.gold === null ? '—' : e.gold)));
    e.tags.forEach(function (t) { s.appendChild(el('span', 'tag', t)); });
    d.appendChild(s);
    var built = false;
    d.addEventListener('toggle', function () {
      // The view kept at its top row (rows down to this one keep their heights, so it stays under
      // the pointer): laid out directly, a scaled list's scroll maps to another offset at the list's
      // new height. Not kept at the end: the last row opened there shows its body below it, as every
      // other row does; kept at the end, the body would push the row clicked up from the pointer.
      var at = viewPlace(true);
      // Closed (by key) with the view's top inside its body, below its summary (the row as tall as
      // that now): the row at the view's top, not its last px.
      if (!d.open && at.p === posOf[i] && at.into >= d.getBoundingClientRect().height) at.into = 0;
      if (d.open) {
        if (!built) { built = true; fillBody(d, e, i); }
        openNodes[i] = d;
        openHeights[i] = pitchOf(d);
        if (resize) resize.observe(d);
      } else {
        if (resize) resize.unobserve(d);
        if (d === rowProbe) rowProbe = null;
        delete openNodes[i];
        delete openHeights[i];
      }
      keepPlace(at);
    });
    return d;
  }

  // The list's geometry: ROW is a closed row's pitch (height and margin), measured on the first row
  // drawn; an open row adds its own measured pitch minus ROW at its position.
  var ROW = 34;
  var measured = false;
  var OVERSCAN = 12;
  // The rows listed (episode positions, the first nHits) and each episode's place among them (-1: not listed).
  var hits = new Int32Array(nEpisodes);
  var nHits = 0;
  var posOf = new Int32Array(nEpisodes).fill(-1);
  var topSpacer = el('div', 'spacer');
  var bottomSpacer = el('div', 'spacer');
  var drawn = { start: 0, end: 0 };
  // The tallest the list is drawn (well under every browser's element height limit).
  var MAX_PX = 5000000;
  // The list's first and last EDGE_PX scroll 1:1 (windowOf): an open row taller than that, within it
  // of an end, would not fit in the drawn height.
  var EDGE_PX = 50000;

  function pitchOf(node) {
    var cs = getComputedStyle(node);
    // The exact height (offsetHeight is rounded: a fraction of a px per row adds up over a long list).
    return node.getBoundingClientRect().height + (parseFloat(cs.marginTop) || 0) + (parseFloat(cs.marginBottom) || 0);
  }
  /** The open rows among the hits: [position, extra height], by position. */
  function opens() {
    var out = [];
    Object.keys(openHeights).forEach(function (i) {
      var p = posOf[Number(i)];
      if (p >= 0) out.push([p, openHeights[i] - ROW]);
    });
    return out.sort(function (a, b) { return a[0] - b[0]; });
  }
  function offsetOf(p, os) {
    var y = p * ROW;
    for (var k = 0; k < os.length && os[k][0] < p; k++) y += os[k][1];
    return y;
  }
  /** The position of the row at height y of the list. */
  function rowAt(y, os) {
    var acc = 0;
    for (var k = 0; k < os.length; k++) {
      var top = os[k][0] * ROW + acc;
      if (y < top) break;
      if (y < top + ROW + os[k][1]) return os[k][0];
      acc += os[k][1];
    }
    return Math.max(0, Math.floor((y - acc) / ROW));
  }

  /**
   * What to draw for the list's scroll position: the list's full height (total) is drawn in phys px;
   * when it is taller than MAX_PX the position is scaled onto it (y: the full-height offset at the
   * view's top), and only rows that fit between the drawn top and bottom are drawn around it.
   */
  function windowOf(os) {
    var s = scaleOf(offsetOf(nHits, os));
    var total = s.total, view = s.view, phys = s.phys, edge = s.edge;
    var at = scrollSeen(phys);
    var top = atEnd(phys) && s.scaled ? phys - view : Math.max(0, Math.min(at, phys - view));
    // Unscaled, a view past the list's end (its rows just grew shorter: a text-only zoom out) shows
    // its last rows: the list, drawn shorter, then brings the scroll back.
    var y = !s.scaled ? Math.min(at, Math.max(0, total - view)) : top <= edge ? top : top >= phys - view - edge ? total - (phys - top) : middleY(top, s);
    var start = Math.max(0, rowAt(y, os) - OVERSCAN);
    var end = Math.min(nHits, rowAt(y + view, os) + OVERSCAN + 1);
    if (s.scaled) {
      // Rows drawn must fit above and below the view in the drawn height: [y - top, y + phys - top].
      while (start < nHits && offsetOf(start, os) < y - top) start++;
      while (end > start && offsetOf(end, os) > y + phys - top) end--;
    }
    return { total: total, phys: phys, scaled: s.scaled, k: s.k, y: y, top: top, start: start, end: end };
  }
  /**
   * How a list of full height total is drawn: phys px tall; when that is shorter (scaled), the list's
   * first and last edge px scroll 1:1 and the rest by k. Scaled to its very ends, a row partly in view
   * within a row of either end (the first row scrolled by a px, the last row when an open one grows)
   * would not fit in the drawn height and was left undrawn.
   */
  function scaleOf(total) {
    var view = Math.max(list.clientHeight, 200);
    var phys = Math.min(total, MAX_PX);
    var scaled = total > phys && phys > view;
    var edge = Math.min(EDGE_PX, (phys - view) / 4);
    var k = scaled ? (total - view - 2 * edge) / (phys - view - 2 * edge) : 1;
    return { total: total, view: view, phys: phys, scaled: scaled, edge: edge, k: k };
  }
  /**
   * The full-height offset at the view's top, the list scaled and scrolled to top, in its middle: the
   * offset keepPlace set (held) while the scroll is still the one it set for it. There a scroll
   * position is a whole px, k px of the list: read back, each row opened or closed moved the view by
   * up to k / 2 px, and that added up. (At either end a px is a px: a row opened and closed again is
   * back in place.)
   */
  function middleY(top, s) {
    if (held && held.scroll === top && held.total === s.total) return held.y;
    return s.edge + (top - s.edge) * s.k;
  }
  /** The scroll position that puts full-height offset y at the view's top: windowOf's y, inverted. */
  function scrollFor(y, s) {
    if (!s.scaled || y <= s.edge) return y;
    if (y >= s.total - s.view - s.edge) return s.phys - (s.total - y);
    return s.edge + (y - s.edge) / s.k;
  }
  /**
   * Whether the view is at the end of the list drawn phys px tall (within 1 px: the browser may draw
   * a list that long a fraction of a px shorter). Rows that changed height since the list was drawn
   * make it taller than that, the view then short of its end; or shorter, the scroll then brought
   * back to the new end.
   */
  function atEnd(phys) {
    var top = scrollSeen(phys);
    return top > 0 && top >= (shrunk(phys) ? phys : Math.min(list.scrollHeight, phys)) - list.clientHeight - 1;
  }
  /**
   * Whether rows shrank since the list was drawn phys px tall (a text-only zoom out) and their new
   * heights are still to be taken up (resized, due): the list is shorter than drawn, and a view
   * within that of the end has already been brought back to the new end by the browser.
   */
  function shrunk(phys) {
    return due !== null && list.scrollHeight < phys - 1;
  }
  /** The list's scroll position at the heights it was drawn with: when shrunk, the last noted (noteScroll). */
  function scrollSeen(phys) {
    return shrunk(phys) ? seen : list.scrollTop;
  }
  /**
   * Notes the scroll position (scrollSeen) while the list is as tall as it was drawn (phys px). While
   * it is shorter (rows shrank: a text-only zoom out not yet taken up), only on a scroll event
   * (byScroll): the browser pulls a view that was past the new end back to it and scrolls nothing
   * else, so a scroll since is the user's (in the same frame as the zoom, say), counted by its own
   * distance from there, or to the end. Not after a layout: rows drawn at their new heights move the
   * end away again.
   */
  function noteScroll(phys, byScroll) {
    var top = list.scrollTop, end = list.scrollHeight - list.clientHeight;
    if (list.scrollHeight >= phys - 1) seen = top;
    else if (!byScroll) return;
    else if (top >= end - 1 && seenTop < end - 1) seen = phys - list.clientHeight;
    else seen += top - Math.min(seenTop, end);
    seenTop = top;
  }
  // seen, and the scroll position it was noted at (they differ only while the list is shorter).
  var seen = 0, seenTop = 0;

  /**
   * Where the view is in the list as drawn: at its end, or at row p, into px below that row's top;
   * byRow, at row p even at the end.
   */
  function viewPlace(byRow) {
    var os = opens(), w = windowOf(os), p = rowAt(w.y, os);
    return { end: !byRow && atEnd(w.phys), p: p, into: w.y - offsetOf(p, os), row: ROW };
  }
  /**
   * Draws the list with its rows' new heights, the view in the same place: at its end; or at its top
   * row, the view's top as far into it as before times the closed rows' change of height (a zoom
   * scales every row; an open row that grew keeps its top), and still inside it.
   */
  function keepPlace(at) {
    // Drawn at the new height first: a scroll past the old height would stop at its end.
    layout();
    held = null;
    if (at.end) list.scrollTop = list.scrollHeight;
    else {
      var os = opens(), top = offsetOf(at.p, os), s = scaleOf(offsetOf(nHits, os));
      var y = top + Math.max(0, Math.min(at.into * ROW / at.row, offsetOf(at.p + 1, os) - top - 1));
      list.scrollTop = scrollFor(y, s);
      held = { scroll: list.scrollTop, y: y, total: s.total };
    }
    layout();
  }
  // The offset keepPlace put at the view's top and the scroll it set for it (middleY).
  var held = null;

  // Draws the rows in view; called on scroll, on a filter change and when an open row changes height.
  // Rows still in view stay the same nodes (a scroll moves the spacers, adds and removes rows at the edges).
  var nodes = {};
  function layout() {
    var os = opens();
    var w = windowOf(os);
    var start = w.start, end = w.end;
    var keep = list.scrollTop;
    // Unscaled, the spacers are the rows' own offsets; scaled, the drawn rows sit where the scaled
    // position puts them and the spacers fill the rest of the drawn height.
    var above = w.scaled ? w.top - (w.y - offsetOf(start, os)) : offsetOf(start, os);
    var rows = offsetOf(end, os) - offsetOf(start, os);
    topSpacer.style.height = above + 'px';
    bottomSpacer.style.height = (w.scaled ? Math.max(0, w.phys - above - rows) : w.total - offsetOf(end, os)) + 'px';
    list.dataset.scale = String(Math.round(w.k * 1000) / 1000);
    var next = {}, want = [];
    for (var p = start; p < end; p++) {
      var i = hits[p];
      var node = nodes[i] || episodeNode(episodeAt(i), i);
      next[i] = node;
      want.push(node);
    }
    Array.prototype.slice.call(list.children).forEach(function (c) {
      if (c === topSpacer || c === bottomSpacer || next[c.dataset.episode] === c) return;
      // Unwatched first: a watched row taken out (its size then 0) during the observer's callback
      // is a "ResizeObserver loop" error.
      if (c === rowProbe) { if (!openNodes[c.dataset.episode]) resize.unobserve(c); rowProbe = null; }
      list.removeChild(c);
    });
    if (topSpacer.parentNode !== list) list.insertBefore(topSpacer, list.firstChild);
    if (bottomSpacer.parentNode !== list) list.appendChild(bottomSpacer);
    var ref = topSpacer.nextSibling;
    want.forEach(function (node) {
      if (node === ref) ref = ref.nextSibling;
      else list.insertBefore(node, ref);
    });
    nodes = next;
    if (list.scrollTop !== keep) list.scrollTop = keep;
    noteScroll(w.phys);
    drawn = { start: start, end: end };
    list.dataset.start = String(start);
    list.dataset.end = String(end);
    if (resize && !probeDue) {
      probeDue = true;
      requestAnimationFrame(watchProbe);
    }
    if (!measured && end > start) {
      var first = topSpacer.nextSibling;
      if (first && !first.open && first.offsetHeight > 0) {
        measured = true;
        var pitch = pitchOf(first);
        if (Math.abs(pitch - ROW) > 0.5) { ROW = pitch; layout(); }
      }
    }
  }

  // A filter change draws a fresh list: every row closed, from the top.
  function render() {
    held = null;
    seen = seenTop = 0;
    Object.keys(openNodes).forEach(function (i) { if (resize) resize.unobserve(openNodes[i]); });
    openNodes = {};
    openHeights = {};
    nodes = {};
    list.textContent = '';
    var bench = fBench.value, method = fMethod.value, tag = fTag.value;
    var outcome = fOutcome.value ? OUTCOMES.indexOf(fOutcome.value) : -1;
    var m = fSearch.value.trim() ? found : null;
    var runOk = runs.map(function (r) { return (!bench || r.benchmark === bench) && (!method || r.method === method); });
    var setOk = sets.map(function (s) { return !tag || s.indexOf(tag) >= 0; });
    nHits = 0;
    for (var i = 0; i < nEpisodes; i++) {
      if (runOk[runOf[i]] && (outcome < 0 || outcomeOf[i] === outcome) && setOk[setOf[i]] && (!m || m[i] === 1)) {
        posOf[i] = nHits;
        hits[nHits++] = i;
      } else posOf[i] = -1;
    }
    list.scrollTop = 0;
    count.textContent = nHits + ' of ' + nEpisodes + ' episodes';
    count.dataset.count = String(nHits);
    layout();
  }

  [fBench, fMethod, fOutcome, fTag].forEach(function (f) { f.addEventListener('change', update); });
  fSearch.addEventListener('input', update);
  list.addEventListener('scroll', function () {
    var os = opens();
    noteScroll(scaleOf(offsetOf(nHits, os)).phys, true);
    var w = windowOf(os);
    // A scaled list's rows move with every scroll position, not only when the rows drawn change.
    if (w.scaled || w.start !== drawn.start || w.end !== drawn.end) layout();
  });

  // Each run's few-shot prompt, once. A run without one (its prompt null: no episode recorded a
  // trajectory; '': its episodes share none) says so in a line, with nothing to open.
  var prompts = document.getElementById('run-prompts');
  runs.forEach(function (r) {
    var head = r.benchmark + ' / ' + r.method + ' · ' + r.model + ' · ' + r.id + ': ';
    if (!r.prompt) {
      prompts.appendChild(el('p', 'prompt', head + (r.prompt === null
        ? 'no few-shot prompt to show (no episode recorded a trajectory)'
        : 'no few-shot prompt shared by the episodes (each shows its whole trajectory)')));
      return;
    }
    var d = el('details', 'prompt');
    d.appendChild(el('summary', null, head + 'few-shot prompt (' + r.prompt.length + ' characters)'));
    d.appendChild(el('pre', null, r.prompt));
    prompts.appendChild(d);
  });

  update();
  document.body.dataset.ready = '1';
})();`;
