// The trajectory browser's script, inlined into the report. Plain ES2017 in a string (no build step,
// nothing for a bundler to rename). Every piece of run data reaches the page through textContent or
// option.text: no innerHTML, no attribute built from data except `value` and `data-*` set as properties.
// The episode list is virtualised: only the rows in view (and a few around them) are in the document,
// between two spacers that stand for the rest, so a sweep of hundreds of thousands of episodes scrolls
// as one list; a closed row has one fixed height, an open one is measured. A list taller than MAX_PX
// (a million rows at 34 px is ~34 million px, past the element height browsers lay out: ~33.5
// million in Chromium, ~17.9 million in Firefox) is drawn MAX_PX tall and its scroll position scaled
// onto the full height, so every row, the last included, is reached by scrolling.
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var runs = JSON.parse(document.getElementById('report-data').textContent).runs;
  // Summaries from the index blocks (appended one by one: spreading 100,000+ into one call overflows
  // the stack); each episode's body (steps, text...) is parsed from its own block when it is needed.
  var episodes = [];
  var blocks = document.querySelectorAll('script.episode-index');
  for (var b = 0; b < blocks.length; b++) {
    var part = JSON.parse(blocks[b].textContent);
    for (var j = 0; j < part.length; j++) episodes.push(part[j]);
  }
  var bodies = [];
  var decoded = 0;
  function bodyOf(i) {
    if (!bodies[i]) {
      bodies[i] = JSON.parse(document.getElementById('ep-' + i).textContent);
      decoded++;
      document.body.dataset.decoded = String(decoded);
    }
    return bodies[i];
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
  var tagSet = {}, allTags = [];
  episodes.forEach(function (e) {
    e.tags.forEach(function (t) { if (!Object.prototype.hasOwnProperty.call(tagSet, t)) { tagSet[t] = 1; allTags.push(t); } });
  });
  fill(fTag, uniq(allTags), 'all tags');

  // Lower-cased search text per episode, built on the first search (it reads every episode's body).
  var haystack = null;
  function searchText(i) {
    if (!haystack) haystack = [];
    if (haystack[i] === undefined) {
      var e = episodes[i], body = bodyOf(i);
      haystack[i] = [e.item, body.input, e.answer || '', e.gold || '', body.text, body.error || '', e.tags.join(' ')].join('\n').toLowerCase();
      bodies[i] = undefined;
    }
    return haystack[i];
  }

  function matches(e, i) {
    var run = runs[e.run];
    if (fBench.value && run.benchmark !== fBench.value) return false;
    if (fMethod.value && run.method !== fMethod.value) return false;
    if (fOutcome.value && e.outcome !== fOutcome.value) return false;
    if (fTag.value && e.tags.indexOf(fTag.value) < 0) return false;
    var q = fSearch.value.trim().toLowerCase();
    if (q && searchText(i).indexOf(q) < 0) return false;
    return true;
  }

  function kv(parent, label, value, cls) {
    var row = el('div', 'kv' + (cls ? ' ' + cls : ''));
    row.appendChild(el('span', 'k', label));
    row.appendChild(el('span', 'v', value));
    parent.appendChild(row);
  }

  function episodeBody(e, i) {
    var run = runs[e.run];
    var x = bodyOf(i);
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

  // Open rows: their node (kept while open, so scrolling away and back keeps what was read) and height.
  var openNodes = {};
  var openHeights = {};
  var resize = typeof ResizeObserver === 'function' ? new ResizeObserver(function (entries) {
    var changed = false;
    entries.forEach(function (en) {
      var i = en.target.dataset.episode;
      if (openNodes[i] === en.target && en.target.offsetHeight > 0) { openHeights[i] = pitchOf(en.target); changed = true; }
    });
    if (changed) layout();
  }) : null;

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
      if (d.open) {
        if (!built) { built = true; d.appendChild(episodeBody(e, i)); }
        openNodes[i] = d;
        openHeights[i] = pitchOf(d);
        if (resize) resize.observe(d);
      } else {
        if (resize) resize.unobserve(d);
        delete openNodes[i];
        delete openHeights[i];
      }
      layout();
    });
    return d;
  }

  // The list's geometry: ROW is a closed row's pitch (height and margin), measured on the first row
  // drawn; an open row adds its own measured pitch minus ROW at its position.
  var ROW = 34;
  var measured = false;
  var OVERSCAN = 12;
  var hits = [];
  var posOf = new Int32Array(episodes.length).fill(-1);
  var topSpacer = el('div', 'spacer');
  var bottomSpacer = el('div', 'spacer');
  var drawn = { start: 0, end: 0 };
  // The tallest the list is drawn (well under every browser's element height limit).
  var MAX_PX = 5000000;

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
    var total = offsetOf(hits.length, os);
    var view = Math.max(list.clientHeight, 200);
    var phys = Math.min(total, MAX_PX);
    var scaled = total > phys && phys > view;
    // Scrolled to the end of what is drawn, the view is at the end of the list, even when the browser
    // drew the list a fraction of a px shorter than phys (lengths that large are rounded).
    var atEnd = list.scrollTop > 0 && list.scrollTop >= list.scrollHeight - list.clientHeight - 0.5;
    var top = atEnd && scaled ? phys - view : Math.max(0, Math.min(list.scrollTop, phys - view));
    var k = scaled ? (total - view) / (phys - view) : 1;
    var y = scaled ? top * k : list.scrollTop;
    var start = Math.max(0, rowAt(y, os) - OVERSCAN);
    var end = Math.min(hits.length, rowAt(y + view, os) + OVERSCAN + 1);
    if (scaled) {
      // Rows drawn must fit above and below the view in the drawn height: [y - top, y + phys - top].
      while (start < hits.length && offsetOf(start, os) < y - top) start++;
      while (end > start && offsetOf(end, os) > y + phys - top) end--;
    }
    return { total: total, phys: phys, scaled: scaled, k: k, y: y, top: top, start: start, end: end };
  }

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
      var node = nodes[i] || episodeNode(episodes[i], i);
      next[i] = node;
      want.push(node);
    }
    Array.prototype.slice.call(list.children).forEach(function (c) {
      if (c !== topSpacer && c !== bottomSpacer && next[c.dataset.episode] !== c) list.removeChild(c);
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
    drawn = { start: start, end: end };
    list.dataset.start = String(start);
    list.dataset.end = String(end);
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
    Object.keys(openNodes).forEach(function (i) { if (resize) resize.unobserve(openNodes[i]); });
    openNodes = {};
    openHeights = {};
    nodes = {};
    list.textContent = '';
    hits = [];
    posOf.fill(-1);
    episodes.forEach(function (e, i) { if (matches(e, i)) { posOf[i] = hits.length; hits.push(i); } });
    list.scrollTop = 0;
    count.textContent = hits.length + ' of ' + episodes.length + ' episodes';
    count.dataset.count = String(hits.length);
    layout();
  }

  [fBench, fMethod, fOutcome, fTag].forEach(function (f) { f.addEventListener('change', render); });
  fSearch.addEventListener('input', render);
  list.addEventListener('scroll', function () {
    var w = windowOf(opens());
    // A scaled list's rows move with every scroll position, not only when the rows drawn change.
    if (w.scaled || w.start !== drawn.start || w.end !== drawn.end) layout();
  });

  // Each run's few-shot prompt, once.
  var prompts = document.getElementById('run-prompts');
  runs.forEach(function (r) {
    var d = el('details', 'prompt');
    d.appendChild(el('summary', null, r.benchmark + ' / ' + r.method + ' · ' + r.model + ' · ' + r.id + ': few-shot prompt (' + r.prompt.length + ' characters)'));
    d.appendChild(el('pre', null, r.prompt || '(no prompt shared by the episodes)'));
    prompts.appendChild(d);
  });

  render();
  document.body.dataset.ready = '1';
})();`;
