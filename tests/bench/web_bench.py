#!/usr/bin/env python3
"""web_bench.py BUILD_DIR - the browser page's budgets (DESIGN.md "In the
browser"), measured in headless Debian chromium (tests/web_cdp.py):
  web_gzip_kb      build/web/ as a host would serve it, each file gzip -9 (<= 400 KB: with the model lessons and their weights)
  web_first_ms     navigation start to the first frame painted (the frame
                   after the first requestAnimationFrame), median of 7 loads (<= 300 ms)
  web_key_ms       one key (web_key, the frame laid out, JSON to the DOM, the
                   browser's style and layout forced), median of 400 keys
                   stepping lesson 1 forward and back at 100x30 (<= 5 ms)
Prints "bench: NAME VALUE UNIT (budget ...: ok|OVER)" lines; exit 0 unless a
measurement could not be taken."""
import gzip
import os
import statistics
import sys

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
    finally:
        br.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
