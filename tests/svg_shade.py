"""svg_shade.py SVG...: in mono pictures the heat shades never cover a digit.

A mono heat map puts a shade (░ ▒ ▓ █) before each number. A font draws
those glyphs wider than their 10-pixel column, over the digit beside them,
so qkvtutor draws them as <rect data-ch="▓">s inside their cell. Checked
here, for every SVG given: no shade is set as text; every shade rectangle
ends at least 2 pixels before the left edge of any digit's cell on its row
that it would otherwise touch (no overlap, a gap); and the pictures hold
shades at all (so the check cannot pass on pictures without any). Exit 1
with a line per failure."""
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
SHADES = "░▒▓█"
CELL_W, CELL_H = 10, 24


def check(path):
    root = ET.parse(path).getroot()
    bad, digits, rects = [], {}, []
    for t in root.iter(NS + "text"):
        text = t.text or ""
        if any(c in SHADES for c in text):
            bad.append("a shade set as text: %r" % text)
        row = int(float(t.get("y")) // CELL_H)
        for x, c in zip((float(v) for v in t.get("x").split()), text):
            if c.isdigit():
                digits.setdefault(row, []).append(x)
    for r in root.iter(NS + "rect"):
        if (r.get("data-ch") or "x") in SHADES:
            x, w = float(r.get("x")), float(r.get("width"))
            rects.append((int(float(r.get("y")) // CELL_H), x, x + w))
    for row, left, right in rects:
        for dx in digits.get(row, []):
            if left < dx + CELL_W and right > dx - 2:
                bad.append("row %d: the shade at x %g..%g covers or touches the digit at x %g" % (row, left, right, dx))
    return bad, len(rects)


def main():
    failed, shades = 0, 0
    for path in sys.argv[1:]:
        bad, n = check(path)
        shades += n
        for b in bad[:3]:
            print("FAIL: %s: %s" % (path, b))
        failed += bool(bad)
    if shades == 0:
        print("FAIL: no shade rectangles in %d mono pictures" % len(sys.argv[1:]))
        return 1
    print("svg: mono shades: %d in %d pictures, none on a digit" % (shades, len(sys.argv) - 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
