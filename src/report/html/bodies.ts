// The page's episode bodies, a block at a time (render.ts episodeBlocks writes each block's body lines
// as one gzip member, base64-coded, in a `script.episode-bodies` element). The functions below are
// pasted into both page scripts (client.ts, labelling.ts: each runs alone, allowed by its own hash).
// decodeBodies decodes in the page with no request: base64 to bytes, bytes through DecompressionStream, read
// back by a Response built from the stream (a constructor, not a fetch: the page's CSP, which loads
// nothing, is not involved).
// Every failure rejects (none throws): bad base64, a missing element, a browser without
// DecompressionStream (Firefox before 113, Safari before 16.4) reach the callers' failure paths.
// blockIndex and expandIndex read a block's index (its last line: render.ts BlockIndex, runs and idx
// run-length coded) for both scripts alike.
export const BODIES_JS = String.raw`function blockIndex(el) {
    var text = el.textContent;
    return JSON.parse(text.slice(text.lastIndexOf('\n') + 1));
  }
  // The index's runs and idx, one an episode, written into runs[at...] and idxs[at...].
  function expandIndex(head, runs, idxs, at) {
    var k, c, i = at;
    for (k = 0; k < head.run.length; k += 2) for (c = 0; c < head.run[k + 1]; c++) runs[i++] = head.run[k];
    i = at;
    for (k = 0; k < head.idx.length; k += 2) for (c = 0; c < head.idx[k + 1]; c++) idxs[i++] = head.idx[k] + c;
  }
  function decodeBodies(el) {
    return Promise.resolve().then(function () {
      if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot decompress (no DecompressionStream)');
      var b64 = el.textContent, bytes;
      if (typeof Uint8Array.fromBase64 === 'function') bytes = Uint8Array.fromBase64(b64);
      else {
        var bin = atob(b64);
        bytes = new Uint8Array(bin.length);
        for (var j = 0; j < bin.length; j++) bytes[j] = bin.charCodeAt(j);
      }
      var stream = new Response(bytes).body.pipeThrough(new DecompressionStream('gzip'));
      return new Response(stream).text();
    }).then(function (text) { return text.split('\n'); });
  }`;
