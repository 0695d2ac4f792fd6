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

  function tr(s) { return M ? str(M._web_tr(cstr(s))) : s; } /* in the language of the wasm, i.e. of the frame */
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
      else if (k === "size" && /^\d+x\d+$/.test(v)) /* as --size: 60x18 to 1000x1000 */
        s.size = v.split("x").map(function (n, k) { return Math.min(1000, Math.max(k ? 18 : 60, +n)); });
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
      if (ch.length === 1 && ch.charCodeAt(0) < 128) out += esc(ch);
      else if (fitsGrid(ch, c[2])) out += ch.replace(/[<&>]/g, esc); /* a mark may sit on < & > */
      else out += '<i class="' + (c[2] === 2 ? "w" : "n") + '">' + ch.replace(/[<&>]/g, esc) + "</i>";
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
        if (w === 0) { /* a combining mark: on the character before it, in that character's cell */
          var p = row[x - 1] === 0 ? x - 2 : x - 1;
          if (p >= 0 && row[p]) row[p] = [row[p][0] + ch, row[p][1], row[p][2]];
          continue;
        }
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
    shown = grid;
    if (!a11yTimer) a11yTimer = setTimeout(a11y, 100);
    var bodyClass = "t-" + frame.theme + (frame.present ? " present" : "");
    if (document.body.className !== bodyClass) document.body.className = bodyClass;
    if (screen.className !== "r0") screen.className = "r0";
    document.documentElement.lang = frame.lang === "zh" ? "zh-CN" : "en";
    if (labelled !== frame.lang) { labelled = frame.lang; labels(); } /* the catalogue is the frame's language */
    if (state.lang !== frame.lang || state.theme !== frame.theme || state.present !== !!frame.present) {
      var refit = state.present !== !!frame.present;
      state.lang = frame.lang; state.theme = frame.theme; state.present = !!frame.present;
      if (refit && !state.size) fit(); /* presentation mode changes the font */
    }
    askIfDirty();
    if (!hashTimer) hashTimer = setTimeout(writeHash, 150); /* browsers throttle history updates */
  }
  var labelled = "";
  /* What a screen reader gets (the live region, the tables) follows a moment
   * after the last key: a burst of keys is said once, and costs the key nothing. */
  var a11yTimer = 0, shown = [];
  function a11y() { a11yTimer = 0; if (frame) { announce(); tables(shown); } }
  /* The matrices as tables for a screen reader (#tables, visually hidden):
   * each one's title, column and row labels and cells, read off the grid as
   * shown (a "?" stays a "?", a stage not reached stays dots). */
  function slice(row, x0, x1) {
    for (var s = "", x = Math.max(0, x0); x < x1 && x < row.length; x++) s += row[x] === 0 ? "" : row[x] ? row[x][0] : " ";
    return s.trim();
  }
  function cellHtml(tag, text) { return "<" + tag + ">" + text.replace(/[<&>]/g, esc) + "</" + tag + ">"; }
  var tablesHtml = "";
  function tables(grid) {
    var out = "";
    (frame.boxes || []).forEach(function (b) { /* [y, x, w, h, r0, nr, c0, nc, cy, cx, cw, step] */
      var cy = b[8], cx = b[9], cw = b[10], m, t = "<table>" + cellHtml("caption", slice(grid[b[0]] || [], b[1], b[1] + b[2]));
      t += "<tr><td></td>";
      for (m = 0; m < b[7]; m++) t += cellHtml("th", cy > b[0] + 1 && slice(grid[cy - 1], cx + m * cw, cx + m * cw + cw) || String(b[6] + m + 1));
      t += "</tr>";
      for (var k = 0; k < b[5] && grid[cy + k * b[11]]; k++) {
        var row = grid[cy + k * b[11]];
        t += "<tr>" + cellHtml("th", slice(row, b[1], cx) || String(b[4] + k + 1));
        for (m = 0; m < b[7]; m++) t += cellHtml("td", slice(row, cx + m * cw, cx + m * cw + cw));
        t += "</tr>";
      }
      out += t + "</table>";
    });
    if (out !== tablesHtml) { tablesHtml = out; document.getElementById("tables").innerHTML = out; }
  }
  /* A screen reader hears what changed (#live, polite): a new step's counter,
   * narration and question; else a new status line (✓ right, ✗ not quite,
   * an action's effect). */
  var heard = { at: "", msg: "" };
  function announce() {
    var at = state.lesson + " " + frame.step + " " + frame.card, text = "";
    if (at !== heard.at) {
      text = frame.step + "/" + frame.steps + ". " + frame.say + (frame.msg ? " " + frame.msg : "");
    } else if (frame.msg !== heard.msg && frame.msg) {
      text = frame.msg;
    }
    heard.at = at; heard.msg = frame.msg;
    if (text) document.getElementById("live").textContent = text;
  }
  var hashTimer = 0;
  function caret() {
    var c = document.getElementById("caret");
    if (!frame.cur) { if (!c.hidden) c.hidden = true; return; }
    var opened = c.hidden;
    c.hidden = false;
    c.style.left = frame.cur[1] * cell.w + "px";
    c.style.top = frame.cur[0] * cell.h + "px";
    c.style.width = cell.w + "px";
    c.style.height = cell.h + "px";
    if (opened && c.scrollIntoView) c.scrollIntoView({ block: "nearest" }); /* zoomed in, the page scrolls: show the field */
  }

  /* ---- size: the grid fills the window, never below 60x18 cells ----
   * The font shrinks to fit 60 columns (presentation mode: its big font,
   * about 80) across; for the height only down to 12 px, then the page
   * scrolls down. So zooming in makes the text bigger up to 60 columns
   * across, and the lesson never gives way to the "too small" screen. */
  var MIN_COLS = 60, MIN_ROWS = 18, MIN_FONT = 12, size = [0, 0];
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
  function font(fs) { screen.style.fontSize = fs + "px"; measure(); return fs; }
  function grid(W, H) { /* the font and the grid for a stage of W x H pixels */
    var fs = font(state.present ? 26 : 15), want = state.present ? 80 : MIN_COLS;
    if (W / cell.w < want) { /* presentation: rather fewer columns than text smaller than 15 px */
      var across = fs * W / cell.w;
      fs = font(Math.min(fs, Math.max(across / want, Math.min(15, across / MIN_COLS))));
    }
    if (H / cell.h < MIN_ROWS && fs > MIN_FONT) font(Math.max(MIN_FONT, fs * H / cell.h / MIN_ROWS));
    return [Math.max(MIN_COLS, Math.floor(W / cell.w + 0.01)), Math.max(MIN_ROWS, Math.floor(H / cell.h))];
  }
  function fit() {
    var box = document.getElementById("stage"), g;
    screen.style.width = screen.style.height = "0";
    var W = box.clientWidth, H = box.clientHeight;
    if (state.size) {
      g = state.size;
      screen.style.fontSize = "";
      measure();
    } else {
      g = grid(W, H);
    }
    for (var pass = 0; pass < 2; pass++) {
      screen.style.width = g[0] * cell.w + "px";
      screen.style.height = g[1] * cell.h + "px";
      /* a page taller than the window may get a scroll bar, narrowing the stage: once more in what is left */
      if (state.size || pass || box.clientWidth + 0.5 >= W) break;
      g = grid(box.clientWidth, H);
    }
    if (g[0] !== size[0] || g[1] !== size[1]) { size = [g[0], g[1]]; keep(["r", g[0], g[1]]); }
    M._web_resize(g[0], g[1]);
    if (frame) paint();
  }

  /* ---- input ---- */
  function key(k) { /* a UI key code, or a string of characters */
    if (typeof k === "string") { for (var ch of k) key(ch.codePointAt(0)); return; }
    say("");
    keep(["k", k]);
    M._web_key(k);
    paint();
    download();
    watchSoon();
  }
  /* W's watch mode (a model lesson that trains): a slice of training steps
   * an animation frame, each slice sized so that its steps take about
   * WATCH_MS (from the last slices' time a step), then the frame drawn: the
   * page keeps drawing, and a key is answered between two frames and stops
   * it (the UI's key table). A hidden tab gets no frames, so it pauses. */
  var watchRaf = 0, stepMs = 0, WATCH_MS = 20;
  function watchSoon() { if (!watchRaf) watchRaf = requestAnimationFrame(watch); }
  function watch() {
    watchRaf = 0;
    var n = stepMs ? Math.max(1, Math.min(10, Math.floor(WATCH_MS / stepMs))) : 1, t = performance.now();
    if (!M._web_tick(n)) return;
    var ms = (performance.now() - t) / n;
    stepMs = stepMs ? 0.7 * stepMs + 0.3 * ms : ms;
    keep(["t", n]);
    paint();
    watchSoon();
  }
  var MODE_EDIT = 2; /* ui.h's ViewMode: edit mode, where Tab is the next matrix */
  function uiKey(e) {
    if (e.isComposing || e.key === "Dead" || e.key === "Unidentified") return null;
    /* Tab moves the focus through the page (the bar, the screen), as in any
     * page; only edit mode takes it for its matrices, and Esc leaves edit mode. */
    if (e.key === "Tab") return frame && frame.mode === MODE_EDIT && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey ? 9 : null;
    var one = [...e.key].length === 1;
    if (e.ctrlKey && !e.altKey && !e.metaKey && /^[a-z]$/i.test(e.key)) {
      var c = e.key.toLowerCase();
      return c === "r" || c === "u" ? c.charCodeAt(0) & 31 : null; /* Ctrl-R redo, Ctrl-U clears a field */
    }
    if (e.metaKey) return null;
    /* AltGr (Windows reports Ctrl+Alt) and Option (macOS: Alt) type characters
     * such as [ ] { } @ on most European layouts: e.key is that character. A
     * letter or digit with Alt is the browser's (Alt+1 a tab, Alt+F its menu). */
    if (e.altKey || e.ctrlKey)
      return one && (e.getModifierState && e.getModifierState("AltGraph") || e.altKey && !/^[a-z0-9]$/i.test(e.key))
        ? e.key.codePointAt(0) : null;
    if (info.keys[e.key] !== undefined) return info.keys[e.key];
    return one ? e.key.codePointAt(0) : null;
  }
  /* The screen shows a focus ring once Tab is used (keyboard users), not on a click. */
  var stage = document.getElementById("stage");
  document.addEventListener("keydown", function (e) { if (e.key === "Tab") stage.classList.add("kbd"); }, true);
  document.addEventListener("pointerdown", function () { stage.classList.remove("kbd"); }, true);
  document.addEventListener("keydown", function (e) {
    /* the bar and the touch buttons keep their own keys (Enter, Space, arrows); Esc comes back */
    if (e.target && e.target.closest && e.target.closest("#bar, #touch button") && e.key !== "Escape") return;
    var k = uiKey(e);
    if (k === null) return;
    e.preventDefault();
    if (e.key === "Escape" && e.target !== screen) screen.focus({ preventScroll: true });
    key(k);
  });
  screen.addEventListener("click", function (e) {
    var r = screen.getBoundingClientRect();
    var y = Math.floor((e.clientY - r.top) / cell.h), x = Math.floor((e.clientX - r.left) / cell.w);
    keep(["c", y, x]);
    if (M._web_click(y, x)) paint();
  });
  screen.addEventListener("wheel", function (e) {
    if (frame && frame.mode === 1) { e.preventDefault(); keep(["w", e.deltaY < 0 ? 1 : 0]); M._web_wheel(e.deltaY < 0 ? 1 : 0); paint(); }
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
    kept = { open: [n, at, lang(), themeId(state.theme), state.present ? 1 : 0, size[0], size[1]], ev: [] };
    state.lesson = n;
    document.getElementById("lesson").value = String(n);
    paint();
  }
  function openText(name, text) {
    if (M._web_open_yaml(cstr(name), cstr(text), 0, lang(), themeId(state.theme), state.present ? 1 : 0) !== 0) {
      say(str(M._web_error()));
      return false;
    }
    kept = { open: [0, 0, lang(), themeId(state.theme), state.present ? 1 : 0, size[0], size[1]], name: name, text: text, ev: [] };
    state.lesson = 0;
    document.getElementById("lesson").value = "";
    say("");
    paint();
    return true;
  }
  function openFile(file) {
    var r = new FileReader();
    r.onload = function () { openText(file.name, String(r.result)); screen.focus({ preventScroll: true }); };
    /* the loader refuses a file over 1 MiB and says its size; past 32 MiB only a part is read */
    r.readAsText(file.size > (32 << 20) ? file.slice(0, 32 << 20) : file);
  }

  /* ---- a reload, back or forward keeps the lesson as it was ----
   * What the student did since the lesson opened (keys, clicks, the wheel, the watch mode's slices,
   * the grid's sizes) is kept in sessionStorage when the page is left, and
   * done again when the same tab comes back to the same address: edits,
   * answers, the tally and undo come back exactly. A link opened anew starts
   * afresh. With unsaved edits the browser asks before the tab is closed. */
  var kept = null, replaying = false, KEEP_MAX = 20000;
  function keep(ev) {
    if (kept && !replaying) { if (kept.ev.length < KEEP_MAX) kept.ev.push(ev); else kept = null; }
  }
  function stash() {
    if (!kept || !frame) return;
    try { sessionStorage.setItem("qkvtutor", JSON.stringify({ hash: location.hash, kept: kept })); } catch (e) { /* full */ }
  }
  function replay(k) {
    var o = k.open;
    M._web_resize(o[5], o[6]);
    var rc = k.name ? M._web_open_yaml(cstr(k.name), cstr(k.text), 0, o[2], o[3], o[4]) : M._web_open(o[0], o[1], o[2], o[3], o[4]);
    if (rc !== 0) return false;
    replaying = true;
    k.ev.forEach(function (e) { /* as it happened: each event, then its frame */
      if (e[0] === "r") M._web_resize(e[1], e[2]);
      else if (e[0] === "k") { M._web_key(e[1]); var p = M._web_saved(); if (p) M._web_free(p); }
      else if (e[0] === "c") M._web_click(e[1], e[2]);
      else if (e[0] === "w") M._web_wheel(e[1]);
      else if (e[0] === "t") { M._web_tick(e[1]); return; } /* the watch mode's slice: its frame is not needed */
      M._web_frame();
    });
    replaying = false;
    kept = k;
    state.lesson = o[0];
    document.getElementById("lesson").value = o[0] ? String(o[0]) : "";
    return true;
  }
  function restore() {
    var nav = performance.getEntriesByType ? performance.getEntriesByType("navigation")[0] : null, k;
    if (!nav || (nav.type !== "reload" && nav.type !== "back_forward")) return false;
    try { k = JSON.parse(sessionStorage.getItem("qkvtutor")); } catch (e) { return false; }
    /* the same lesson as the address's (its step may not have been written yet) */
    var which = function (h) { return (/[#&]lesson=([^&]*)/.exec(h) || ["", ""])[1]; };
    if (!k || !k.kept || which(k.hash) !== which(location.hash) || !replay(k.kept)) return false;
    fit(); /* the grid for the window now */
    paint();
    watchSoon(); /* left while watching: it goes on */
    return true;
  }
  window.addEventListener("pagehide", stash);
  document.addEventListener("visibilitychange", function () { if (document.hidden) stash(); });
  /* asked only while there are unsaved edits (a page that always asks loses the back-forward cache) */
  var asking = false;
  function ask(e) { e.preventDefault(); e.returnValue = ""; }
  function askIfDirty() {
    var want = !!(frame && frame.dirty);
    if (want !== asking) { asking = want; window[want ? "addEventListener" : "removeEventListener"]("beforeunload", ask); }
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

  /* ---- text on a coloured highlight (the focused row and column, the
   * prompt, an error on the projector): when the palette's pair is below
   * 4.5:1, WCAG's contrast for text, it is black or white, whichever is
   * clearer on that colour (never below 4.58:1). Text on the page's own
   * background is the palette's as it is. */
  function lum(c) {
    return [0.2126, 0.7152, 0.0722].reduce(function (sum, w, k) {
      var v = c[k] / 255;
      return sum + w * (v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
    }, 0);
  }
  function ratio(a, b) { var x = lum(a) + 0.05, y = lum(b) + 0.05; return Math.max(x, y) / Math.min(x, y); }
  function clearText() {
    var box = document.createElement("div"), roles = 0, out = "";
    info.css.replace(/\.r(\d+)\{/g, function (m, r) { roles = Math.max(roles, +r + 1); return m; });
    box.hidden = true;
    document.documentElement.appendChild(box); /* outside body and its theme: only the probe is styled */
    for (var r = 0; r < roles; r++) box.appendChild(document.createElement("span")).className = "r" + r;
    info.themes.forEach(function (t) {
      box.className = "t-" + t;
      Array.prototype.forEach.call(box.children, function (e, r) {
        var cs = getComputedStyle(e), fg = cs.color.match(/[\d.]+/g).map(Number), bg = cs.backgroundColor.match(/[\d.]+/g).map(Number);
        if (bg[3] === 0 || ratio(fg, bg) >= 4.5) return;
        out += ".t-" + t + " .r" + r + "{color:" + (ratio([0, 0, 0], bg) > ratio([255, 255, 255], bg) ? "#000" : "#fff") + "}\n";
      });
    });
    box.remove();
    return out;
  }

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
    /* chosen with the mouse: on to the lesson; with the arrow keys the focus
     * stays, so the next arrow goes on choosing, and Enter goes to the lesson */
    var keyed = false;
    sel.addEventListener("keydown", function (e) { keyed = true; if (e.key === "Enter") screen.focus({ preventScroll: true }); });
    sel.addEventListener("pointerdown", function () { keyed = false; });
    sel.addEventListener("change", function () {
      if (sel.value) open(parseInt(sel.value, 10), 0);
      if (!keyed) screen.focus({ preventScroll: true });
    });
    var file = document.getElementById("file");
    file.addEventListener("change", function () { if (file.files[0]) openFile(file.files[0]); file.value = ""; });
    file.addEventListener("cancel", function () { screen.focus({ preventScroll: true }); });
    document.getElementById("openfile").addEventListener("click", function () { file.click(); });
    var keys = { next: info.keys.PageDown, back: info.keys.PageUp, btheme: 116, blang: 76, bpresent: 80, bhelp: 63 };
    Object.keys(keys).forEach(function (id) {
      document.getElementById(id).addEventListener("click", function (e) { e.preventDefault(); key(keys[id]); screen.focus({ preventScroll: true }); });
    });
    document.addEventListener("dragover", function (e) { e.preventDefault(); document.body.classList.add("drop"); });
    document.addEventListener("dragleave", function () { document.body.classList.remove("drop"); });
    document.addEventListener("drop", function (e) {
      e.preventDefault(); document.body.classList.remove("drop");
      if (e.dataTransfer.files[0]) openFile(e.dataTransfer.files[0]);
    });
  }

  function fromHash(first) {
    var h = readHash();
    state.size = h.size;
    if (h.lang) state.lang = h.lang;
    else if (!location.hash) state.lang = /^zh/i.test(navigator.language || "") ? "zh" : "en";
    if (h.theme && info.themes.indexOf(h.theme) >= 0) state.theme = h.theme;
    state.present = h.present;
    frame = null; /* fit() sizes the grid; open() paints the first frame */
    if (first && restore()) return;
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
    losses: function () { return JSON.parse(str(M._web_losses())); }, /* each training step's loss */
    heapBytes: function () { return M.HEAP8.length; },
    lessons: function () { return info.lessons.length; },
    cell: function () { return cell; },
    open: open,
    openText: function (name, text) { openFile(new File([text], name)); },
    info: function () { return info; },
    ready: false
  };

  qkvtutor().then(function (mod) {
    M = mod;
    M._web_init();
    info = JSON.parse(str(M._web_info()));
    var st = document.createElement("style");
    st.textContent = info.css;
    document.head.appendChild(st);
    st.textContent += clearText();
    bar();
    fromHash(true);
    screen.focus({ preventScroll: true });
    window.qkv.ready = true;
    requestAnimationFrame(function () { requestAnimationFrame(function (t) { window.qkv.firstFrame = t; }); });
  });
})();
