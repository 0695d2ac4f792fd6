/* pre.js - emcc --pre-js for the page's loader (make web): the wasm's bytes
 * are in qkvtutor.js as one string, a character a byte (src/web/embed.js);
 * they become Module.wasmBinary here, and the loader is handed them
 * instead of fetch()ing a .wasm (the page's policy, connect-src 'none',
 * refuses any fetch, and file:// has none). */
if (typeof qkvtutorWasm == "string") {
  var qkvBytes = new Uint8Array(qkvtutorWasm.length);
  for (var qkvK = 0; qkvK < qkvBytes.length; qkvK++) qkvBytes[qkvK] = qkvtutorWasm.charCodeAt(qkvK);
  Module["wasmBinary"] = qkvBytes;
  qkvtutorWasm = null; /* the string's 800 KB are not kept */
}
Module["instantiateWasm"] = function (imports, done) {
  WebAssembly.instantiate(getBinary(wasmBinaryFile), imports).then(function (r) {
    done(r.instance, r.module);
  }, function (e) {
    err("qkvtutor: the wasm did not start: " + e);
    abort(e);
  });
  return {};
};
