"""svg_grid.py LIST: is each SVG's text the terminal's screen text?

LIST has one line per case: "SVG TXT COLS ROWS". The SVG (from qkvtutor
--svg) is read with an XML parser; every <text>'s characters are put on a
COLS x ROWS grid by their own x positions (column = x / cell width, row from
y), a wide character taking two columns, and a block element's <rect>
by its data-ch; the grid's rows, trailing blanks
trimmed, must equal TXT (tests/svg_screen: the view on a headless screen).
Also checked: one x position per character, every character in its own
cell, no control characters. Prints one line per failure with the first
differing row; exit 1 if any case fails."""
import sys
import unicodedata
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def grid_text(path, cols, rows):
    root = ET.parse(path).getroot()
    cw = float(root.get("width")) / cols
    ch = float(root.get("height")) / rows
    cells = {}
    for t in root.iter(NS + "text"):
        text = t.text or ""
        xs = [float(v) for v in t.get("x").split()]
        if len(xs) != len(text):
            raise ValueError("%d x positions for %d characters: %r" % (len(xs), len(text), text))
        row = int(float(t.get("y")) // ch)
        for x, c in zip(xs, text):
            if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F:
                raise ValueError("control character U+%04X in row %d" % (ord(c), row))
            col = x / cw
            if col != int(col) or not (0 <= row < rows and 0 <= col < cols):
                raise ValueError("character %r off the grid at x=%g, row %d" % (c, x, row))
            if (row, int(col)) in cells:
                raise ValueError("two characters in row %d, column %d" % (row, int(col)))
            cells[(row, int(col))] = c
    # block elements are drawn as rectangles that carry their character
    for r in root.iter(NS + "rect"):
        c = r.get("data-ch")
        if c is None:
            continue
        row, col = int(float(r.get("y")) // ch), int(float(r.get("x")) // cw)
        if (row, col) in cells:
            raise ValueError("a block and a character in row %d, column %d" % (row, col))
        cells[(row, col)] = c
    lines = []
    for r in range(rows):
        out, c = [], 0
        while c < cols:
            if (r, c) in cells:
                out.append(cells[(r, c)])
                c += max(width(cells[(r, c)]), 1)
            else:
                out.append(" ")
                c += 1
        lines.append("".join(out).rstrip(" "))
    return "\n".join(lines) + "\n"


def main():
    failed = total = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = [line.split() for line in f if line.strip()]
    for svg, txt, cols, rows in cases:
        total += 1
        try:
            got = grid_text(svg, int(cols), int(rows))
        except (ValueError, ET.ParseError) as e:
            print("FAIL: %s: %s" % (svg, e))
            failed += 1
            continue
        with open(txt, encoding="utf-8") as f:
            want = f.read()
        if got != want:
            g, w = got.split("\n"), want.split("\n")
            k = next(i for i in range(max(len(g), len(w))) if i >= len(g) or i >= len(w) or g[i] != w[i])
            print("FAIL: %s: row %d differs from the terminal's (%s)\n  svg:  %r\n  term: %r"
                  % (svg, k + 1, txt, g[k] if k < len(g) else None, w[k] if k < len(w) else None))
            failed += 1
    print("svg: %d of %d screens equal the terminal's text" % (total - failed, total))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
