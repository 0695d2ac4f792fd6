#!/usr/bin/env python3
"""web_bench.py BUILD_DIR - the browser page's budgets (DESIGN.md "In the
browser"), measured in headless Debian chromium (tests/web_cdp.py):
  web_gzip_kb      build/web/ as a host would serve it, each file gzip -9 (<= 400 KB: with the model lessons and their weights)
  web_first_ms     navigation start to the first frame painted (the frame
                   after the first requestAnimationFrame), median of 7 loads (<= 300 ms)
  web_key_ms       one key (web_key, the frame laid out, JSON to the DOM, the
                   browser's style and layout forced), median of 400 keys
                   stepping lesson 1 forward and back at 100x30 (<= 5 ms)
  web_watch_fps    the watch mode (W) on lesson 18 from its random weights:
                   animation frames a second while it trains (>= 20, as
                   DESIGN's watch mode), and beside it the training steps a
                   second and the steps a slice
  web_watch_ind_s  seconds from W until a layer-2 head's induction score on
                   the model view reaches 0.5 (<= 60, as the terminal's)
  web_watch_stop_ms  a key during the watch mode until the page says it stopped
                   (the key sent over DevTools, so an upper bound; no budget)
  web_watch_undo_ms  u after that run: the whole run undone (no budget)
Prints "bench: NAME VALUE UNIT (budget ...: ok|OVER)" lines; exit 0 unless a
measurement could not be taken."""
import gzip
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from web_cdp import Browser  # noqa: E402

B = sys.argv[1] if len(sys.argv) > 1 else "build"
WEB = os.path.join(B, "web")
PAGE = "file://" + os.path.abspath(os.path.join(WEB, "index.html"))


def line(name, value, unit, budget):
    print(f"bench: {name} {value:.1f} {unit} (budget <= {budget} {unit}: {'ok' if value <= budget else 'OVER'})")


def main():
    size = sum(len(gzip.compress(open(os.path.join(WEB, f), "rb").read(), 9)) for f in sorted(os.listdir(WEB)))
    line("web_gzip_kb", size / 1024, "KB", 400)
    br = Browser(1000, 700)
    try:
        firsts = []
        for _ in range(7):
            br.goto(PAGE + "#lesson=1&size=100x30", ready="window.qkv && window.qkv.firstFrame")
            firsts.append(br.eval("qkv.firstFrame"))
        line("web_first_ms", statistics.median(firsts), "ms", 300)
        times = br.eval("""(function () {
            var t = [], s = document.getElementById('screen');
            qkv.open(1, 1);
            for (var k = 0; k < 400; k++) {
                var a = performance.now();
                qkv.key(k % 28 < 14 ? 110 : 98);
                void s.offsetHeight;
                t.push(performance.now() - a);
            }
            return t;
        })()""")
        times.sort()
        line("web_key_ms", statistics.median(times), "ms", 5)
        print(f"bench: web_key_ms_p90 {times[int(len(times) * 0.9)]:.2f} ms")
        watch(br)
    finally:
        br.quit()
    return 0


def induction(text):
    """The best layer-2 head's induction score on the model view's text."""
    lines = text.split("\n")
    heads = next((ln.split() for ln in lines if "L1.H1" in ln), [])
    ind = next(([t for t in ln.split() if t != "ind"] for ln in lines if ln.lstrip().startswith("ind ")), [])
    return max((float(v) for h, v in zip(heads, ind) if h.startswith("L2.")), default=0.0)


def watch(br):
    names = br.eval("qkv.info().lessons")
    n = next(k + 1 for k, name in enumerate(names) if os.path.basename(name).startswith("18-"))
    br.goto(f"{PAGE}#lesson={n}&at=1&size=100x30")
    br.eval("""(function () {
        window.qkvW = { frames: 0, t0: performance.now() };
        (function f() { if (qkvW) { qkvW.frames++; requestAnimationFrame(f); } })();
        qkv.key(87);
    })()""")
    t0, ind_s, best = time.time(), None, 0.0
    while time.time() - t0 < 90:
        time.sleep(0.25)
        best = max(best, induction(br.eval("qkv.text()")))
        if best >= 0.5:
            ind_s = time.time() - t0
            break
    r = br.eval("[qkvW.frames, performance.now() - qkvW.t0, qkv.losses().length]")
    fps, steps = r[0] / (r[1] / 1000), r[2] / (r[1] / 1000)
    print(f"bench: web_watch_fps {fps:.1f} frames/s (budget >= 20 frames/s: {'ok' if fps >= 20 else 'UNDER'})"
          f"; {steps:.0f} steps/s, {steps / fps:.2f} steps a frame, {r[2]} steps")
    if ind_s is None:
        print(f"bench: web_watch_ind_s over 90 s (budget <= 60 s: OVER; best induction score {best:.2f})")
    else:
        line("web_watch_ind_s", ind_s, "s", 60)
    a = time.time()
    br.key("z", "KeyZ", "z", 90)
    while "Stopped after" not in (br.eval("qkv.frame().msg") or "") and time.time() - a < 10:
        pass
    print(f"bench: web_watch_stop_ms {(time.time() - a) * 1000:.1f} ms")
    r = br.eval("""(function () {
        var n = qkv.losses().length, a = performance.now();
        qkv.key(117);
        return [n, performance.now() - a, qkv.losses().length, qkv.heapBytes()];
    })()""")
    print(f"bench: web_watch_undo_ms {r[1]:.1f} ms (u after the run: {r[0]} steps back to {r[2]}; "
          f"the wasm heap then {r[3] / 2**20:.0f} MiB)")
    br.eval("qkvW = null")


if __name__ == "__main__":
    sys.exit(main())
