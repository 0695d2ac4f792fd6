"""web_model.py - tests/web.py's model-lesson parts: the page does for a
model lesson what the terminal does (issues 31 and 32, DESIGN.md "In the
browser", "Trained here").

  * the model keys as real key events, each screen equal to the terminal's
    after the same keys (tests/web_plans.c): { and } the layer, M the model
    view, i and the student's own tokens (the prediction moves as native),
    g one training step, G a hundred, u undoing them;
  * determinism: G in lesson 18 (100 steps of Adam from train.from's random
    weights) gives each step's loss equal to the native build's to 1e-9
    (web_losses() against web_plans ... losses, %.17g);
  * the watch mode W: it trains in slices, one an animation frame (the
    page draws and runs other tasks between them: counted, not timed), the
    losses of its steps are native G's, a key stops it (no step after), and
    u undoes the whole run; a reload keeps a run (the same losses bit for
    bit) and one left while watching goes on;
  * screenshots/web-model-view.png and screenshots/web-watch.png.
Each function gets the Browser, the page's URL, check(cond, what, why) and
the test's helpers (native, first_diff) from tests/web.py. At 100x30 unless
a size is named (the model view also at 80x24, 60x18 and 120x40)."""
import os
import time


def index(br, page, number):
    """The place in the page's list (= the native build's) of the built-in
    lesson whose file starts with number ("17")."""
    br.goto(f"{page}#lesson=1&size=100x30")
    names = br.eval("qkv.info().lessons")
    return next(k + 1 for k, n in enumerate(names) if os.path.basename(n).startswith(number + "-"))


def same(br, page, check, native, first_diff, what, lesson, at, keys, must, ctrl_u_after=None, lang="en", size=(100, 30)):
    """Lesson `lesson` at step `at` in the page, keys typed as real key
    events (ctrl_u_after: Ctrl-U typed after that many keys), the grid
    against the terminal's screen after the same keys."""
    br.goto(f"{page}#lesson={lesson}&at={at}&size={size[0]}x{size[1]}&lang={lang}")
    before = br.eval("qkv.text()")
    typed = ""
    for k, ch in enumerate(keys):
        if ctrl_u_after is not None and k == ctrl_u_after:
            br.key("u", "KeyU", None, 85, 2)
            typed += "\x15"
        br.type(ch)
        typed += ch
    got = br.eval("qkv.text()")
    want = native(lang, lesson, at, typed, size=size)
    check(got == want, f"{what}: the page equals the terminal after {typed!r}", first_diff(want, got))
    for m in must:
        check(m in got, f"{what}: shows {m!r}", "not on the page:\n" + got)
    check(got != before, f"{what}: the keys changed the screen")
    return got


def keys(br, page, check, native, first_diff):
    l17, l18 = index(br, page, "17"), index(br, page, "18")
    args = (br, page, check, native, first_diff)
    same(*args, "model view (M, lesson 17)", l17, 1, "M",
         ["model view: every layer × head", "L1.H1", "L2.H2", "prev 0.", "ind  0."])
    same(*args, "zh: the model view (M, lesson 17)", l17, 1, "M", ["模型视图"], lang="zh")
    same(*args, "zh: a hundred training steps (G, lesson 18)", l18, 1, "G", ["100 步训练: p(E) 0.120 → 0.039, 预测现在是 V。"], lang="zh")
    same(*args, "80x24: the model view (M, lesson 17)", l17, 1, "M", ["L2.H2"], size=(80, 24))
    same(*args, "60x18: the model view after G (lesson 18)", l18, 1, "MG", ["L2.H2"], size=(60, 18))
    same(*args, "120x40: the model view (M, lesson 17)", l17, 1, "M", ["L2.H2"], size=(120, 40))
    same(*args, "the help in a model lesson (?, lesson 17)", l17, 1, "?",
         ["previous / next layer (model lessons)", "your own input: opens tokens = ...", "watch it learn: trains until a key"])
    same(*args, "the next layer (}, lesson 17 at layer 1)", l17, 4, "}", ["Layer 2 of 2."])
    same(*args, "the layer before ({, lesson 17 at layer 2)", l17, 6, "{", ["Layer 1 of 2."])
    same(*args, "the model view paged by layer (M then {)", l17, 6, "M{", ["Layer 1 of 2."])
    got = same(*args, "own tokens (i, Ctrl-U, typed, lesson 17)", l17, 1, "itokens = <s> K L M N K L M\r",
               ["tokens = <s> K L M N K L M: p(W) 0.774 → 0.044, the prediction is now N."], ctrl_u_after=1)
    check("after <s> K L M N K L M" in got or "tokens = <s> K L M N K L M" in got,
          "own tokens: the input the model reads is the one typed")
    same(*args, "one training step (g, lesson 18)", l18, 1, "g", ["one training step: p(E) 0.120 → 0.119, still the prediction."])
    same(*args, "a hundred training steps (G, lesson 18)", l18, 1, "G", ["100 training steps: p(E) 0.120 → 0.039, the prediction is now V."])
    same(*args, "u undoes the hundred steps (G u, lesson 18)", l18, 1, "Gu", [])


def native_losses(native_raw, lesson, keys):
    return [float(x) for x in native_raw("en", lesson, 1, keys, "losses").split()]


def determinism(br, page, check, native_raw):
    l18 = index(br, page, "18")
    br.goto(f"{page}#lesson={l18}&at=1&size=100x30")
    br.type("G")
    web = br.eval("qkv.losses()")
    nat = native_losses(native_raw, l18, "G")
    worst = max((abs(a - b) for a, b in zip(web, nat)), default=float("inf"))
    bits = web == nat
    check(len(web) == 100 and len(nat) == 100 and worst <= 1e-9,
          "determinism: lesson 18 trained 100 steps (G, Adam from train.from's random weights) in the page "
          f"gives every step's loss the native build's to 1e-9 (largest difference {worst:.3g}"
          + (", bit for bit" if bits else "") + f"; last loss {web[-1] if web else None!r})",
          f"{len(web)} losses in the page, {len(nat)} native")


def watch(br, page, check, native_raw, shots):
    """W trains in slices, one an animation frame; a key stops it; u undoes the run."""
    l18 = index(br, page, "18")
    br.goto(f"{page}#lesson={l18}&at=1&size=100x30")
    # what else the page runs while it trains: animation frames and timers, counted
    br.eval("""(function () {
        window.qkvCount = { frames: 0, timers: 0, on: true };
        (function f() { if (qkvCount.on) { qkvCount.frames++; requestAnimationFrame(f); } })();
        (function t() { if (qkvCount.on) { qkvCount.timers++; setTimeout(t, 0); } })();
    })()""")
    br.type("W")
    msg = br.eval("qkv.frame().msg")
    check("Watching it learn: any key stops" in msg, "watch mode (W, lesson 18): it says it is watching", repr(msg))
    deadline = time.time() + 120  # a hang guard, not a budget (make bench times it)
    while time.time() < deadline and len(br.eval("qkv.losses()")) < 150:
        time.sleep(0.1)
    os.makedirs(shots, exist_ok=True)
    path = os.path.join(shots, "web-watch.png")
    br.screenshot(path)  # still watching: the loss curve over the model view
    check(os.path.getsize(path) > 10000, f"screenshot {path} (the watch mode: the loss curve over the model view)")
    text = br.eval("qkv.text()")
    counts = br.eval("[qkvCount.frames, qkvCount.timers]")
    n1 = len(br.eval("qkv.losses()"))
    check(n1 >= 150 and "· step " in text and "any key stops" in text,
          f"watch mode: it trains and draws the loss curve as it goes ({n1} steps)",
          "\n" + text)
    check(counts[0] >= n1 / 10 and counts[1] >= n1 / 10,
          f"watch mode: the page keeps drawing and running its other tasks between slices "
          f"({counts[0]} animation frames and {counts[1]} timers during {n1} steps, at most 10 a slice)",
          repr(counts))
    br.type("z")  # any key stops it (and does nothing else)
    stopped = br.eval("qkv.losses()")
    time.sleep(0.5)
    later = br.eval("qkv.losses()")
    msg = br.eval("qkv.frame().msg")
    check(later == stopped and f"Stopped after {len(stopped)} training steps in all" in msg,
          f"watch mode: a key stops it: no step after ({len(stopped)} steps), and it says so", repr(msg))
    nat = native_losses(native_raw, l18, "GG")
    k = min(len(stopped), len(nat))
    worst = max(abs(a - b) for a, b in zip(stopped[:k], nat[:k]))
    check(k >= 100 and worst <= 1e-9,
          f"watch mode: its slices train as native G does: the first {k} steps' losses to 1e-9 "
          f"(largest difference {worst:.3g})")
    br.type("u")
    msg = br.eval("qkv.frame().msg")
    check(br.eval("qkv.losses()") == [] and "Undid the whole training run." in msg,
          "watch mode: u then undoes the whole run (no training step left)", repr(msg))
    br.eval("qkvCount.on = false")


def screenshot(br, page, check, shots):
    l17 = index(br, page, "17")
    br.goto(f"{page}#lesson={l17}&at=1")
    br.type("M")
    os.makedirs(shots, exist_ok=True)
    path = os.path.join(shots, "web-model-view.png")
    br.screenshot(path)
    check("model view" in br.eval("qkv.text()") and os.path.getsize(path) > 10000,
          f"screenshot {path} (lesson 17's model view)")


def reload(br, page, check):
    """A reload keeps a watch run (its slices replayed, the same losses bit
    for bit), and one left while watching goes on watching."""
    l18 = index(br, page, "18")
    br.goto(f"{page}#lesson={l18}&at=1&size=100x30")
    br.type("W")
    deadline = time.time() + 60
    while time.time() < deadline and len(br.eval("qkv.losses()")) < 40:
        time.sleep(0.05)
    br.type("z")
    before = br.eval("qkv.losses()")
    text = br.eval("qkv.text()")
    time.sleep(0.3)  # the hash follows a moment later
    br.cmd("Page.reload")
    br.goto_wait()
    after = br.eval("qkv.losses()")
    check(len(before) >= 40 and after == before and br.eval("qkv.text()") == text,
          f"a reload after a watch run keeps it: its {len(before)} steps replayed, the same losses bit for bit "
          "and the same screen", f"{len(before)} steps before, {len(after)} after")
    br.type("W")
    while time.time() < deadline and len(br.eval("qkv.losses()")) < len(before) + 20:
        time.sleep(0.05)
    br.cmd("Page.reload")
    br.goto_wait()
    kept = len(br.eval("qkv.losses()"))
    while time.time() < deadline and len(br.eval("qkv.losses()")) < kept + 20:
        time.sleep(0.05)
    more = len(br.eval("qkv.losses()"))
    check(kept >= len(before) + 20 and more >= kept + 20 and "Watching it learn" in br.eval("qkv.frame().msg"),
          f"a reload while watching goes on watching ({kept} steps kept, {more} a moment later)")
    br.type("z")
