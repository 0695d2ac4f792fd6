"""web_access.py - the browser page as a keyboard-only, touch, zoomed,
screen-reader or foreign-keyboard user meets it (tests/web.py runs these).

Each function drives the page in headless chromium (tests/web_cdp.py) and
reports through check(cond, what, why): the Tab order leaves the screen
(edit mode keeps Tab for its matrices, Esc lets go); a swipe to the right
is the page's Back, never the browser's history back; no console error on
load; the bar in Chinese when the lesson is; zoom up to 400 % keeps a
60x18 grid and bigger text; a reload or back keeps edits, answers and an
own lesson, and closing with edits asks first; the focus comes back to the
screen after "Open a lesson file"; steps and answers reach a live region;
every role's text at 4.5:1 against its background in every theme; AltGr
and Option characters ([ ]) arrive; presentation mode's hidden bar takes no
taps; combining marks stay in their character's cell."""
import json
import os
import re
import time
import unicodedata

SHIFT, ALT, CTRL = 8, 1, 2


def until(br, expr, timeout=10):
    """Waits for expr to be true in the page (a file read, a timer), no longer than timeout."""
    deadline = time.time() + timeout
    while time.time() < deadline and not br.eval(f"!!({expr})"):
        time.sleep(0.05)


def active(br):
    return br.eval("document.activeElement ? document.activeElement.id || document.activeElement.tagName : ''")


def tab(br, shift=False):
    br.key("Tab", "Tab", None, 9, SHIFT if shift else 0)
    return active(br)


def tab_order(br, page, check):
    br.goto(f"{page}#lesson=1&at=5&size=100x30")
    start = active(br)
    back = [tab(br, True) for _ in range(6)]
    check(start == "screen" and back == ["bhelp", "bpresent", "blang", "btheme", "openfile", "lesson"],
          "Shift-Tab from the screen goes back through the bar to the lesson picker", f"{start} < {back}")
    fwd = [tab(br) for _ in range(6)]
    check(fwd == ["openfile", "btheme", "blang", "bpresent", "bhelp", "screen"],
          "Tab from the lesson picker goes through the bar to the screen", " > ".join(fwd))
    ring = br.eval("(function(){var s=getComputedStyle(document.getElementById('stage'), '::after');"
                   "return [s.borderTopStyle, s.borderTopWidth, s.borderTopColor, s.zIndex, "
                   "getComputedStyle(document.body).backgroundColor];})()")
    rc = ratio(rgb(ring[2]), rgb(ring[4])) if ring[0] == "solid" else 0
    check(ring[0] == "solid" and float(ring[1].rstrip("px")) >= 2 and ring[3] == "1" and rc >= 3,
          f"the screen, reached by Tab, shows a focus ring at {rc:.1f}:1 against the page (3:1 or more)", repr(ring))
    check(tab(br) != "screen", "Tab on the screen moves the focus on (no keyboard trap)", active(br))
    br.goto(f"{page}#lesson=1&at=5&size=100x30")
    for _ in range(6):
        tab(br, True)
    br.key("ArrowDown", "ArrowDown", None, 40)
    br.key("ArrowDown", "ArrowDown", None, 40)
    chose = [active(br), br.eval("document.getElementById('lesson').value")]
    br.key("Enter", "Enter", "\r", 13)
    br.key("PageDown", "PageDown", None, 34)
    f = br.eval("qkv.frame()")
    head = br.eval("qkv.text()").split("\n")[0]
    check(chose == ["lesson", "3"] and active(br) == "screen" and "Scaled scores" in head and f["step"] == 1
          and not f["card"],
          "the lesson picker by keys: two arrows choose lesson 3 (the focus stays), Enter goes to it, PgDn steps",
          f"{chose}, then {active(br)}, step {f['step']}: {head}")
    br.goto(f"{page}#lesson=1&at=5&size=100x30")
    br.type("e")
    before = br.eval("qkv.text()")
    stays = tab(br)
    after = br.eval("qkv.text()")
    check(stays == "screen" and after != before and br.eval("qkv.frame().mode") == 2,
          "edit mode: Tab is the next matrix and the focus stays on the screen", stays)
    br.key("Escape", "Escape", None, 27)
    check(br.eval("qkv.frame().mode") == 0 and tab(br) != "screen",
          "edit mode: Esc leaves it, then Tab moves the focus on", active(br))


def swipe_back(br, page, check):
    """A swipe to the right, on a phone, with another page before the lesson in the tab's history."""
    br.cmd("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True})
    br.cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    try:
        br.goto(page.replace("index.html", "web.css"), ready="document.readyState == 'complete'")
        br.goto(page + "#lesson=1&at=8", fresh=False)
        br.eval("window.qkvMark = 1")
        for k in range(5):
            for t, x in (("touchStart", 60), ("touchMove", 120), ("touchMove", 200), ("touchMove", 280),
                         ("touchMove", 330), ("touchEnd", 330)):
                br.cmd("Input.dispatchTouchEvent",
                       {"type": t, "touchPoints": [{"x": x, "y": 420}] if t != "touchEnd" else []})
                time.sleep(0.03)
            time.sleep(0.4)
        here = br.eval("[location.pathname.replace(/.*\\//, ''), window.qkvMark || 0, "
                       "window.qkv ? qkv.frame().step : 0]")
        check(here == ["index.html", 1, 3], "five swipes to the right are five steps back (8 -> 3), "
              "never the browser's history back", repr(here))
        css = br.eval("[getComputedStyle(document.documentElement).overscrollBehaviorX, "
                      "getComputedStyle(document.body).overscrollBehaviorX]")
        check(css == ["none", "none"], "overscroll-behavior-x: none on html and body", repr(css))
    finally:
        br.cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        br.cmd("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 700, "deviceScaleFactor": 1, "mobile": False})


def present_tap(br, page, check):
    """Presentation mode on a tablet: a tap where the hidden bar's Theme button is."""
    br.cmd("Emulation.setDeviceMetricsOverride", {"width": 768, "height": 1024, "deviceScaleFactor": 2, "mobile": True})
    br.cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
    try:
        br.goto(f"{page}#lesson=1&at=3&present")
        r = br.eval("(function(){var r=document.getElementById('btheme').getBoundingClientRect();"
                    "return [r.left + r.width / 2, r.top + r.height / 2];})()")
        for t in ("touchStart", "touchEnd"):
            br.cmd("Input.dispatchTouchEvent", {"type": t, "touchPoints": [{"x": r[0], "y": r[1]}] if t != "touchEnd" else []})
        time.sleep(0.3)
        got = br.eval("[qkv.frame().theme, getComputedStyle(document.getElementById('bar')).opacity]")
        check(got == ["dark", "0"], "presentation mode on a touch screen: a tap on the hidden bar switches "
              "nothing and the bar stays hidden", repr(got))
    finally:
        br.cmd("Emulation.setTouchEmulationEnabled", {"enabled": False})
        br.cmd("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 700, "deviceScaleFactor": 1, "mobile": False})


def console_clean(br, page, check):
    del br.events[:]
    br.goto(f"{page}#lesson=1&at=3")
    time.sleep(0.3)
    br.eval("0")
    msgs = br.console()
    check(not msgs, "no console error or warning while the page loads", "\n  ".join(m[:160] for m in msgs))


def chinese_bar(br, page, check, want):
    words = ("next", "back", "openfile", "bl", "btheme", "bpresent", "bhelp")
    get = "[%s]" % ",".join(f"document.getElementById('{w}').textContent" for w in words)
    br.goto(f"{page}#lesson=2&at=5&lang=zh")
    got = br.eval(get)
    check(got == want, "#lang=zh: the bar and the touch buttons are in Chinese", repr(got))
    ua = br.call("Browser.getVersion")["userAgent"]
    br.cmd("Emulation.setUserAgentOverride", {"userAgent": ua, "acceptLanguage": "zh-CN"})
    try:
        br.goto(page)
        got = br.eval(get)
        check(br.eval("navigator.language") == "zh-CN" and br.eval("qkv.frame().lang") == "zh" and got == want,
              "a browser in Chinese: the lesson, the bar and the touch buttons are in Chinese", repr(got))
    finally:
        br.cmd("Emulation.setUserAgentOverride", {"userAgent": ua, "acceptLanguage": "en-US"})


def zoom(br, page, check):
    """Browser zoom of a 1280x800 window: the CSS viewport shrinks, device pixels per CSS pixel grow."""
    seen = {}
    try:
        for z in (1, 2, 3, 4):
            br.cmd("Emulation.setDeviceMetricsOverride",
                   {"width": 1280 // z, "height": 800 // z, "deviceScaleFactor": z, "mobile": False})
            br.goto(f"{page}#lesson=1&at=7")
            f = br.eval("qkv.frame()")
            g = br.eval("(function(){var s=document.getElementById('screen'),r=s.getBoundingClientRect(),"
                        "d=document.scrollingElement;return [parseFloat(getComputedStyle(s).fontSize),"
                        "r.bottom+d.scrollTop,d.scrollHeight,d.scrollWidth,innerWidth];})()")
            seen[z] = g[0] * z
            text = br.eval("qkv.text()")
            check(f["cols"] >= 60 and f["rows"] >= 18 and "needs at least" not in text and g[1] <= g[2] + 1
                  and g[3] <= g[4], f"zoom {z * 100} %: a {f['cols']}x{f['rows']} grid, every row reachable, "
                  f"no sideways scroll, the lesson shown", f"{g} {text[:200]!r}")
        check(seen[3] >= seen[2] and seen[4] >= seen[2] * 0.99 and seen[2] >= seen[1],
              "zoom: the text never gets smaller on the screen as the zoom grows (device pixels: "
              + ", ".join(f"{z * 100} % {seen[z]:.1f}" for z in sorted(seen)) + ")")
    finally:
        br.cmd("Emulation.setDeviceMetricsOverride", {"width": 1000, "height": 700, "deviceScaleFactor": 1, "mobile": False})


def reload_keeps(br, page, check, lesson3):
    br.goto(f"{page}#lesson=1&at=7&size=100x30")
    br.type("0.006\r")
    br.type("nnnn:Q[1] = K[1] * 5\r")
    br.type("t")
    before = br.eval("qkv.text()")
    time.sleep(0.3)
    n = len(br.dialogs)
    br.cmd("Page.reload")
    br.goto_wait()
    after = br.eval("qkv.text()")
    check(after == before and "0.873" in after, "a reload keeps the edit, the answer and the theme: the same screen",
          f"{before}\n-- after the reload:\n{after}")
    check(len(br.dialogs) > n and br.dialogs[-1].get("type") == "beforeunload",
          "leaving with unsaved edits asks first (beforeunload)", repr(br.dialogs[n:]))
    br.goto(page.replace("index.html", "web.css"), ready="document.readyState == 'complete'", fresh=False)
    br.eval("history.back()")
    br.goto_wait()
    check(br.eval("qkv.text()") == before, "back from another page keeps the edit and the answer")
    br.eval("qkv.openText('mine.yaml', %s)" % json.dumps(lesson3[0]))
    until(br, "document.getElementById('lesson').value === ''")
    br.type("nn")
    before = br.eval("qkv.text()")
    br.cmd("Page.reload")
    br.goto_wait()
    after = br.eval("qkv.text()")
    check(lesson3[1] in after and after == before, "a reload keeps the student's own lesson file, at its step",
          before.split("\n")[0] + " / " + after.split("\n")[0] + " " + repr(br.eval(
              "[location.hash, performance.getEntriesByType('navigation')[0].type, "
              "(sessionStorage.getItem('qkvtutor') || '').slice(0, 100), document.getElementById('msg').textContent]")))
    br.goto(f"{page}#lesson=1&at=7&size=100x30")
    check("0.873" not in br.eval("qkv.text()"), "a link opened anew starts the lesson afresh")


def open_file_focus(br, page, check, path):
    br.goto(f"{page}#lesson=1&at=3&size=100x30")
    br.cmd("Page.setInterceptFileChooserDialog", {"enabled": True})
    try:
        r = br.eval("(function(){var r=document.getElementById('openfile').getBoundingClientRect();"
                    "return [r.left + r.width / 2, r.top + r.height / 2];})()")
        for t in ("mousePressed", "mouseReleased"):
            br.cmd("Input.dispatchMouseEvent", {"type": t, "x": r[0], "y": r[1], "button": "left", "clickCount": 1})
        ev = br.wait_event("Page.fileChooserOpened")
        br.cmd("DOM.setFileInputFiles", {"files": [path], "backendNodeId": ev["backendNodeId"]})
        deadline = time.time() + 5
        while time.time() < deadline and br.eval("document.getElementById('lesson').value") != "":
            time.sleep(0.05)
        who = active(br)
        br.key("PageDown", "PageDown", None, 34)
        br.key("PageDown", "PageDown", None, 34)
        f = br.eval("qkv.frame()")
        check(who == "screen" and f["step"] == 2, "after Open a lesson file the focus is on the screen: "
              "PgDn steps", f"focus {who}, step {f['step']}")
    finally:
        br.cmd("Page.setInterceptFileChooserDialog", {"enabled": False})


def live(br, page, check):
    br.goto(f"{page}#lesson=1&at=6&size=100x30")
    br.key("PageDown", "PageDown", None, 34)
    until(br, "document.getElementById('live') && /7\\/14/.test(document.getElementById('live').textContent)")
    until(br, "document.querySelectorAll('#tables table').length")  # the live region follows the last key
    said = br.eval("(document.getElementById('live') || {}).textContent || ''")
    check("7/14" in said and "The subscript 12 means query 1 looking at key 2" in said and "What is score₁₂" in said,
          "a step is announced (live region): its counter, narration and question", repr(said))
    tables = br.eval("""Array.prototype.map.call(document.querySelectorAll('#tables table'), function (t) {
        return [t.caption.textContent].concat(Array.prototype.map.call(t.rows, function (r) {
            return Array.prototype.map.call(r.cells, function (c) { return c.textContent; }); })); })""")
    s_table = next((t for t in tables if t[0].startswith("S = Q·Kᵀ")), None)
    q_table = next((t for t in tables if t[0].startswith("Q = X·Wq")), None)
    check(len(tables) == 6 and s_table and s_table[1] == ["", "我", "love", "猫"] and s_table[2] == ["我", "−0.066", "?", "0.044"]
          and q_table and q_table[2] == ["我", "0.149", "−0.041", "0.194"] and "0.006" not in json.dumps(tables),
          "the six matrices are tables for a screen reader, as shown: S[1][2], the question, stays ?", repr(tables)[:400])
    br.cmd("Accessibility.enable")
    roles = [n.get("role", {}).get("value") for n in br.cmd("Accessibility.getFullAXTree")["nodes"]]
    br.cmd("Accessibility.disable")
    check(roles.count("table") == 6 and roles.count("status") >= 1, "the accessibility tree has the six tables "
          "and the live region (a status)", f"{roles.count('table')} tables, {roles.count('status')} status")
    br.type("0.006\r")
    until(br, "/✓/.test(document.getElementById('live').textContent)")
    said = br.eval("(document.getElementById('live') || {}).textContent || ''")
    check("✓ right: S[1][2] = 0.006" in said, "a graded answer is announced", repr(said))
    attrs = br.eval("[(document.getElementById('live') || {getAttribute: String}).getAttribute('aria-live'), "
                    "document.getElementById('type').getAttribute('aria-hidden'), "
                    "document.getElementById('type').getAttribute('aria-label')]")
    check(attrs[0] == "polite" and attrs[1] is None and attrs[2], "the live region is polite; the ⌨ field "
          "is focusable, so not aria-hidden, and has a name", repr(attrs))


def lum(c):
    def ch(v):
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
    return 0.2126 * ch(c[0]) + 0.7152 * ch(c[1]) + 0.0722 * ch(c[2])


def ratio(a, b):
    la, lb = lum(a), lum(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


PROBE = """(function () {
    var out = [], info = qkv.info ? qkv.info() : {themes: [], css: ""}, themes = info.themes, roles = 0;
    var was = document.body.className, box = document.createElement('div');
    info.css.replace(/\\.r(\\d+)\\{/g, function (m, r) { roles = Math.max(roles, +r + 1); });
    document.body.appendChild(box);
    themes.forEach(function (t) {
        document.body.className = 't-' + t;  /* the page in that theme */
        var page = getComputedStyle(document.body).backgroundColor;
        for (var r = 0; r < roles; r++) {
            var s = document.createElement('span'); s.className = 'r' + r; s.textContent = 'x';
            box.appendChild(s);
            var cs = getComputedStyle(s);
            out.push([t, r, cs.color, cs.backgroundColor, page, parseFloat(cs.opacity)]);
        }
        box.textContent = '';
    });
    box.remove();
    document.body.className = was;
    return out;
})()"""


def rgb(s):
    if s.startswith("#"):
        return [int(s[k:k + 2], 16) for k in (1, 3, 5)]
    v = [float(x) for x in re.findall(r"[\d.]+", s)]
    return v[:3] if len(v) < 4 or v[3] > 0 else None


def contrast(br, page, check):
    br.goto(f"{page}#lesson=1&at=3")
    low, pairs = [], br.eval(PROBE)
    for theme, role, fg, bg, pagebg, op in pairs:
        b = rgb(bg) or rgb(pagebg)
        f = [op * x + (1 - op) * y for x, y in zip(rgb(fg), rgb(pagebg))]  # a dim role fades into the page
        b = [op * x + (1 - op) * y for x, y in zip(b, rgb(pagebg))]
        r = ratio(f, b)
        if r < 4.5:
            low.append(f"{theme} r{role} {fg} on {bg}: {r:.2f}")
    check(len(pairs) >= 4 * 29 and not low, f"every role's text ({len(pairs)} theme and role pairs), focus "
          "highlights included, at 4.5:1 or more against its background (the page's own colours)", "; ".join(low))


def altgr(br, page, check, native_text):
    br.goto(f"{page}#lesson=1&at=11&size=100x30")
    br.type(":Q")
    br.key("[", "Digit8", "[", 56, CTRL | ALT)   # Windows, German layout: AltGr is Ctrl+Alt
    br.type("1")
    br.key("]", "Digit9", "]", 57, CTRL | ALT)
    br.key("1", "Digit1", None, 49, ALT)          # Alt+1 is the browser's, not a character
    br.type(" = K")
    br.key("[", "Digit5", "[", 53, ALT)            # macOS, German layout: Option-5
    br.type("1")
    br.key("]", "Digit6", "]", 54, ALT)
    br.type(" * 5")
    prompt = br.eval("qkv.text()").rstrip("\n").split("\n")[-1]
    br.type("\r")
    got = br.eval("qkv.text()")
    check(":Q[1] = K[1] * 5" in prompt and got == native_text, "[ and ] typed with AltGr (Windows) and Option "
          "(macOS) arrive: Q[1] = K[1] * 5 as on the terminal", repr(prompt))


def cols_of(line):
    """The display columns where each number of a screen row ends (combining marks take none)."""
    out, x = [], 0
    for m in re.finditer(r"−?\d+\.\d+|.", line):
        for c in m.group(0):
            x += 0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        if len(m.group(0)) > 1:
            out.append(x)
    return out


def combining(br, page, check, text):
    br.goto(f"{page}#lesson=1&size=100x30")
    br.eval("qkv.openText('marks.yaml', %s)" % json.dumps(text))
    until(br, "document.getElementById('lesson').value === ''")
    br.type("nnn")
    rows = br.eval("qkv.text()").split("\n")
    e = next((r for r in rows if r.startswith(" e\u0301")), "")
    cat = next((r for r in rows if r.startswith(" 猫") and re.search(r"\d", r)), "")
    check(e and cols_of(e) == cols_of(cat), "a token with combining marks (e + 3 × U+0301) keeps its row's "
          "columns: its numbers end where 猫's do", f"\n  {e!r}\n  {cat!r}")
