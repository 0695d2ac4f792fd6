/* embed.js - make web's last step: node src/web/embed.js WASM LOADER OUT
 * writes OUT = the wasm's bytes as one JavaScript string (a template
 * literal, one character a byte: U+0000..U+00FF) followed by emscripten's
 * loader, which src/web/pre.js hands the bytes (Module.wasmBinary). One
 * file, so the page works from file:// (where a browser fetches no
 * separate .wasm); the string gzips to 348 KB where -sSINGLE_FILE's base64
 * gzips to 443 KB (the page's budget is 400 KB gzipped, DESIGN.md "In the
 * browser"). Only \ ` $ and CR are escaped (a template literal turns a raw
 * CR into LF); the file is UTF-8, as the page (meta charset) says. */
"use strict";
var fs = require("fs");
var a = process.argv.slice(2);
if (a.length !== 3) { console.error("usage: node embed.js WASM LOADER OUT"); process.exit(2); }
var bin = fs.readFileSync(a[0]), loader = fs.readFileSync(a[1], "utf8"), s = "";
for (var k = 0; k < bin.length; k++) {
  var c = bin[k];
  s += c === 0x5c ? "\\\\" : c === 0x60 ? "\\`" : c === 0x24 ? "\\$" : c === 0x0d ? "\\r" : String.fromCharCode(c);
}
var out = "var qkvtutorWasm=`" + s + "`;\n" + loader, tmp = a[2] + ".tmp";
fs.writeFileSync(tmp, out, "utf8");
fs.renameSync(tmp, a[2]);
