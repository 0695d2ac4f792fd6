/* pre.js - emcc --pre-js for the page's loader (make web): the wasm is in
 * qkvtutor.js as a data: URL (-sSINGLE_FILE), and emscripten's loader would
 * first fetch() that URL, which the page's policy (connect-src 'none')
 * refuses with two console errors before the loader decodes it itself.
 * This hands the loader the decoded bytes instead: no fetch at all. */
Module["instantiateWasm"] = function (imports, done) {
  WebAssembly.instantiate(getBinary(wasmBinaryFile), imports).then(function (r) {
    done(r.instance, r.module);
  }, function (e) {
    err("qkvtutor: the wasm did not start: " + e);
    abort(e);
  });
  return {};
};
