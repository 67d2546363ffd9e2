// The page's episode bodies, a block at a time (render.ts episodeBlocks writes each block's body lines
// as one gzip member, base64-coded, in a `script.episode-bodies` element). The function below is
// pasted into both page scripts (client.ts, labelling.ts: each runs alone, allowed by its own hash).
// It decodes in the page with no request: base64 to bytes, bytes through DecompressionStream, read
// back by a Response built from the stream (a constructor, not a fetch: the page's CSP, which loads
// nothing, is not involved).
// Every failure rejects (none throws): bad base64, a missing element, a browser without
// DecompressionStream (Firefox before 113, Safari before 16.4) reach the callers' failure paths.
export const BODIES_JS = String.raw`function decodeBodies(el) {
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
