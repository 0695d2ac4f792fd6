/* web.js - the page around the wasm (src/web/web.c): paints the frame plan
 * into a monospace grid of real text, turns keyboard, mouse and touch into
 * the UI's keys, keeps the URL's state, opens lesson files and downloads
 * saved ones. No network: everything the page needs is in this folder. */
(function () {
  "use strict";
  var M = null, info = null, frame = null;
  var screen = document.getElementById("screen");
  var state = { lesson: 1, at: 0, lang: "en", theme: "dark", present: false, size: null };
  var rowsHtml = [], cell = { w: 8, h: 16 }, widthCache = {};
  var hashOwn = "";

  function tr(s) { return M && state.lang === "zh" ? str(M._web_tr(cstr(s))) : s; }
  function str(p) { return M.UTF8ToString(p); }
  var scratch = [];
  function cstr(s) { /* a C string for one call (freed at the next frame) */
    var n = M.lengthBytesUTF8(s) + 1, p = M._malloc(n);
    M.stringToUTF8(s, p, n); scratch.push(p); return p;
  }
  function freeScratch() { while (scratch.length) M._free(scratch.pop()); }

  /* ---- the URL: #lesson=2&at=5&lang=zh&theme=light&present&size=100x30 ---- */
  function readHash() {
    var h = location.hash.replace(/^#/, ""), s = { lesson: 1, at: 0, lang: null, theme: null, present: false, size: null };
    h.split("&").forEach(function (kv) {
      var k = kv.split("=")[0], v = decodeURIComponent(kv.slice(k.length + 1));
      if (k === "lesson") s.lesson = parseInt(v, 10) || 1;
      else if (k === "at") s.at = Math.max(0, parseInt(v, 10) || 0);
      else if (k === "lang") s.lang = /^zh/.test(v) ? "zh" : "en";
      else if (k === "theme") s.theme = v;
      else if (k === "present") s.present = v !== "0";
      else if (k === "size" && /^\d+x\d+$/.test(v)) s.size = v.split("x").map(Number);
    });
    return s;
  }
  function writeHash() {
    hashTimer = 0;
    if (!frame) return;
    var p = [];
    if (state.lesson) p.push("lesson=" + state.lesson);
    if (!frame.card) p.push("at=" + frame.step);
    if (frame.lang !== "en") p.push("lang=" + frame.lang);
    if (frame.theme !== "dark") p.push("theme=" + frame.theme);
    if (frame.present) p.push("present");
    if (state.size) p.push("size=" + state.size.join("x"));
    var h = "#" + p.join("&");
    if (h !== location.hash) { hashOwn = h; history.replaceState(null, "", h); }
  }

  /* ---- painting ---- */
  function width(cp) {
    if (cp < 0x300) return 1;
    var w = widthCache[cp];
    if (w === undefined) w = widthCache[cp] = M._web_width(cp);
    return w;
  }
  /* Does a character's glyph in the grid's font fill exactly its columns?
   * Then it goes in as plain text; else in a box of its columns' width, so
   * a fallback font never shifts the columns after it. */
  var fits = {}, ctx = null;
  function fitsGrid(ch, w) {
    var f = fits[ch];
    if (f === undefined) {
      if (!ctx) { ctx = document.createElement("canvas").getContext("2d"); }
      var cs = getComputedStyle(screen); /* its font shorthand may be "" (ligatures off) */
      ctx.font = cs.fontSize + " " + cs.fontFamily;
      f = fits[ch] = Math.abs(ctx.measureText(ch).width - w * cell.w) < 0.02;
    }
    return f;
  }
  function esc(c) { return c === "<" ? "&lt;" : c === "&" ? "&amp;" : c === ">" ? "&gt;" : c; }
  /* One row of cells as spans: a class per role (r0..), b for bold, u for underlined; a
   * character outside ASCII whose glyph is not its columns wide sits in a
   * box one or two columns wide (fitsGrid). */
  function rowHtml(cells, cols) {
    var out = "", cls = "r0", open = false;
    for (var x = 0; x < cols; x++) {
      var c = cells[x];
      if (c === 0) continue; /* the second column of a wide character */
      var k = c ? c[1] : "r0";
      if (k !== cls) { /* the grid itself has role 0's look: its text needs no span */
        if (open) out += "</span>";
        open = k !== "r0";
        if (open) out += '<span class="' + k + '">';
        cls = k;
      }
      var ch = c ? c[0] : " ";
      if (ch.charCodeAt(0) < 128) out += esc(ch);
      else if (fitsGrid(ch, c[2])) out += ch;
      else out += '<i class="' + (c[2] === 2 ? "w" : "n") + '">' + ch + "</i>";
    }
    return out + (open ? "</span>" : "");
  }
  function paint() {
    freeScratch();
    frame = JSON.parse(str(M._web_frame()));
    var cols = frame.cols, rows = frame.rows, grid = [];
    for (var y = 0; y < rows; y++) grid.push(new Array(cols));
    frame.runs.forEach(function (r) {
      var row = grid[r[0]], x = r[1], k = "r" + r[3] + (r[4] & 1 ? " b" : "") + (r[4] & 2 ? " u" : "");
      if (!row) return;
      for (var ch of r[5]) {
        var w = width(ch.codePointAt(0));
        if (x + w > cols) break;
        if (row[x] === 0 && x > 0) row[x - 1] = null; /* over half of a wide character */
        row[x] = [ch, k, w];
        if (w === 2) row[x + 1] = 0;
        x += w;
      }
    });
    while (screen.children.length > rows) screen.removeChild(screen.lastChild);
    while (screen.children.length < rows) screen.appendChild(document.createElement("div"));
    rowsHtml.length = rows;
    for (y = 0; y < rows; y++) {
      var h = rowHtml(grid[y], cols);
      if (rowsHtml[y] !== h) { screen.children[y].innerHTML = h; rowsHtml[y] = h; }
    }
    caret();
    var bodyClass = "t-" + frame.theme + (frame.present ? " present" : "");
    if (document.body.className !== bodyClass) document.body.className = bodyClass;
    if (screen.className !== "r0") screen.className = "r0";
    document.documentElement.lang = frame.lang === "zh" ? "zh-CN" : "en";
    if (state.lang !== frame.lang || state.theme !== frame.theme || state.present !== !!frame.present) {
      state.lang = frame.lang; state.theme = frame.theme; state.present = !!frame.present;
      labels();
      if (!state.size) fit(); /* presentation mode changes the font */
    }
    if (!hashTimer) hashTimer = setTimeout(writeHash, 150); /* browsers throttle history updates */
  }
  var hashTimer = 0;
  function caret() {
    var c = document.getElementById("caret");
    if (!frame.cur) { if (!c.hidden) c.hidden = true; return; }
    c.hidden = false;
    c.style.left = frame.cur[1] * cell.w + "px";
    c.style.top = frame.cur[0] * cell.h + "px";
    c.style.width = cell.w + "px";
    c.style.height = cell.h + "px";
  }

  /* ---- size: the grid fills the window; at least 60x18 cells ---- */
  function measure() {
    var p = document.createElement("span");
    p.className = "probe";
    p.textContent = "M".repeat(100);
    screen.appendChild(p);
    cell.w = p.getBoundingClientRect().width / 100;
    cell.h = p.getBoundingClientRect().height;
    screen.removeChild(p);
    fits = {};
  }
  function fit() {
    var box = document.getElementById("stage"), W = box.clientWidth, H = box.clientHeight, cols, rows;
    if (state.size) {
      cols = state.size[0]; rows = state.size[1];
      screen.style.fontSize = "";
      measure();
    } else {
      var fs = state.present ? 26 : 15;
      screen.style.fontSize = fs + "px";
      measure();
      var want = state.present ? 80 : 60; /* presentation: big text, about 80 columns */
      if (W / cell.w < want || H / cell.h < 18) {
        fs = Math.max(6, fs * Math.min(W / cell.w / want, H / cell.h / 18));
        screen.style.fontSize = fs + "px";
        measure();
      }
      cols = Math.max(20, Math.floor(W / cell.w));
      rows = Math.max(8, Math.floor(H / cell.h));
    }
    screen.style.width = cols * cell.w + "px";
    screen.style.height = rows * cell.h + "px";
    M._web_resize(cols, rows);
    if (frame) paint();
  }

  /* ---- input ---- */
  function key(k) { /* a UI key code, or a string of characters */
    if (typeof k === "string") { for (var ch of k) key(ch.codePointAt(0)); return; }
    say("");
    M._web_key(k);
    paint();
    download();
  }
  function uiKey(e) {
    if (e.isComposing || e.key === "Dead" || e.key === "Unidentified") return null;
    if (e.ctrlKey && !e.altKey && !e.metaKey && /^[a-z]$/i.test(e.key)) {
      var c = e.key.toLowerCase();
      return c === "r" || c === "u" ? c.charCodeAt(0) & 31 : null; /* Ctrl-R redo, Ctrl-U clears a field */
    }
    if (e.altKey || e.metaKey || e.ctrlKey) return null;
    if (info.keys[e.key] !== undefined) return info.keys[e.key];
    if ([...e.key].length === 1) return e.key.codePointAt(0);
    return null;
  }
  document.addEventListener("keydown", function (e) {
    if (e.target && e.target.closest && e.target.closest("#bar") && e.key !== "Escape") return;
    var k = uiKey(e);
    if (k === null) return;
    e.preventDefault();
    key(k);
  });
  screen.addEventListener("click", function (e) {
    var r = screen.getBoundingClientRect();
    var y = Math.floor((e.clientY - r.top) / cell.h), x = Math.floor((e.clientX - r.left) / cell.w);
    if (M._web_click(y, x)) paint();
  });
  screen.addEventListener("wheel", function (e) {
    if (frame && frame.mode === 1) { e.preventDefault(); M._web_wheel(e.deltaY < 0 ? 1 : 0); paint(); }
  }, { passive: false });
  var touch = null;
  screen.addEventListener("touchstart", function (e) {
    var t = e.changedTouches[0]; touch = [t.clientX, t.clientY];
  }, { passive: true });
  screen.addEventListener("touchend", function (e) {
    if (!touch) return;
    var t = e.changedTouches[0], dx = t.clientX - touch[0], dy = t.clientY - touch[1];
    touch = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > 2 * Math.abs(dy)) key(dx < 0 ? info.keys.PageDown : info.keys.PageUp);
  });

  /* A touch screen's keyboard: the ⌨ button focuses a hidden field, and
   * what is typed there goes on as keys (phones send no key names). The
   * field keeps two spaces so a Backspace always has something to delete. */
  var typed = document.getElementById("type");
  function typedReset() { typed.value = "  "; typed.setSelectionRange(2, 2); }
  document.getElementById("kbd").addEventListener("click", function (e) {
    e.preventDefault(); typedReset(); typed.focus();
  });
  typed.addEventListener("input", function (e) {
    if (e.inputType === "deleteContentBackward") key(info.keys.Backspace);
    else if (e.data) key(e.data);
    typedReset();
  });

  /* ---- lessons: built-in, a file (picker or drop), a saved one downloaded ---- */
  function lang() { return state.lang === "zh" ? 1 : 0; }
  function themeId(t) { var k = info.themes.indexOf(t); return k < 0 ? 0 : k; }
  function open(n, at) {
    freeScratch();
    if (M._web_open(n, at, lang(), themeId(state.theme), state.present ? 1 : 0) !== 0) {
      say(str(M._web_error()));
      if (n !== 1) return open(1, 0);
    }
    state.lesson = n;
    document.getElementById("lesson").value = String(n);
    paint();
  }
  function openFile(file) {
    var r = new FileReader();
    r.onload = function () {
      if (M._web_open_yaml(cstr(file.name), cstr(String(r.result)), 0) !== 0) { say(str(M._web_error())); return; }
      state.lesson = 0;
      document.getElementById("lesson").value = "";
      say("");
      paint();
    };
    /* the loader refuses a file over 1 MiB and says its size; past 32 MiB only a part is read */
    r.readAsText(file.size > (32 << 20) ? file.slice(0, 32 << 20) : file);
  }
  function download() {
    var p = M._web_saved();
    if (!p) return;
    var text = str(p), name = str(M._web_error()).replace(/^.*\//, "");
    M._web_free(p);
    var a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([text], { type: "application/x-yaml" }));
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
    window.qkvSaved = { name: name, text: text };
  }
  function say(s) { var m = document.getElementById("msg"); m.textContent = s; m.hidden = !s; }

  /* ---- the bar above the grid: its words in the page's language ---- */
  function labels() {
    [["next", "Next"], ["back", "Back"], ["openfile", "Open a lesson file"], ["bl", "Lesson"],
     ["btheme", "Theme"], ["blang", "中文 / English"], ["bpresent", "Presentation"], ["bhelp", "Help"]]
      .forEach(function (p) { var e = document.getElementById(p[0]); if (e) e.textContent = tr(p[1]); });
  }
  function bar() {
    var sel = document.getElementById("lesson");
    info.lessons.forEach(function (name, k) {
      var o = document.createElement("option");
      o.value = String(k + 1);
      o.textContent = name.replace(/^.*\//, "").replace(/\.yaml$/, "").replace(/-/g, " ");
      sel.appendChild(o);
    });
    var o = document.createElement("option"); o.value = ""; o.textContent = "…"; o.hidden = true; sel.appendChild(o);
    sel.addEventListener("change", function () { if (sel.value) open(parseInt(sel.value, 10), 0); screen.focus(); });
    var file = document.getElementById("file");
    file.addEventListener("change", function () { if (file.files[0]) openFile(file.files[0]); file.value = ""; });
    document.getElementById("openfile").addEventListener("click", function () { file.click(); });
    var keys = { next: info.keys.PageDown, back: info.keys.PageUp, btheme: 116, blang: 76, bpresent: 80, bhelp: 63 };
    Object.keys(keys).forEach(function (id) {
      document.getElementById(id).addEventListener("click", function (e) { e.preventDefault(); key(keys[id]); screen.focus(); });
    });
    document.addEventListener("dragover", function (e) { e.preventDefault(); document.body.classList.add("drop"); });
    document.addEventListener("dragleave", function () { document.body.classList.remove("drop"); });
    document.addEventListener("drop", function (e) {
      e.preventDefault(); document.body.classList.remove("drop");
      if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]);
    });
  }

  function fromHash() {
    var h = readHash();
    state.size = h.size;
    if (h.lang) state.lang = h.lang;
    else if (!location.hash) state.lang = /^zh/i.test(navigator.language || "") ? "zh" : "en";
    if (h.theme && info.themes.indexOf(h.theme) >= 0) state.theme = h.theme;
    state.present = h.present;
    labels();
    frame = null; /* fit() sizes the grid; open() paints the first frame */
    fit();
    open(h.lesson, h.at);
  }
  window.addEventListener("hashchange", function () { if (location.hash !== hashOwn) fromHash(); });
  window.addEventListener("resize", function () { if (M) fit(); });

  /* For the tests (tests/web.py) and anyone at the console. */
  window.qkv = {
    key: key,
    keys: function () { return info.keys; },
    text: function () { /* the grid as text, one line per row, trailing blanks trimmed */
      return Array.prototype.map.call(screen.children, function (r) { return r.textContent.replace(/ +$/, ""); }).join("\n") + "\n";
    },
    frame: function () { return frame; },
    lessons: function () { return info.lessons.length; },
    cell: function () { return cell; },
    open: open,
    openText: function (name, text) { openFile(new File([text], name)); },
    ready: false
  };

  qkvtutor().then(function (mod) {
    M = mod;
    M._web_init();
    info = JSON.parse(str(M._web_info()));
    var st = document.createElement("style");
    st.textContent = info.css;
    document.head.appendChild(st);
    bar();
    fromHash();
    screen.focus();
    window.qkv.ready = true;
    requestAnimationFrame(function () { requestAnimationFrame(function (t) { window.qkv.firstFrame = t; }); });
  });
})();
