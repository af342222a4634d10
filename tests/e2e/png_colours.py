#!/usr/bin/env python3
"""Judges a screenshot without PIL: reads an 8-bit RGB or RGBA PNG with zlib
and prints its size, then for each colour given (#rrggbb) how many pixels
are within a small distance of it (anti-aliased edges blend, the inside of a
box or a straight line keeps the colour).

usage: png_colours.py FILE [#rrggbb ...]
prints: "size W H" then "#rrggbb N" per colour; exit 1 for a file that is not
such a PNG."""
import collections
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):  # the five filters of the PNG spec, section 9
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        width, height, bpp, rows = read_png(sys.argv[1])
    except (ValueError, OSError, zlib.error, struct.error, TypeError) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    print(f"size {width} {height}")
    wanted = [(c, tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))) for c in sys.argv[2:]]
    pixels = collections.Counter()
    for line in rows:
        pixels.update(zip(line[0::bpp], line[1::bpp], line[2::bpp]))
    counts = {c: 0 for c, _ in wanted}
    for (r, g, b), n in pixels.items():
        for name, (wr, wg, wb) in wanted:
            if abs(r - wr) <= 6 and abs(g - wg) <= 6 and abs(b - wb) <= 6:
                counts[name] += n
    for name, _ in wanted:
        print(f"{name} {counts[name]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
