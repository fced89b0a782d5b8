#!/usr/bin/env python3
"""png_ink.py - how much of a PNG is drawn, with nothing but python3:

  png_ink.py IMAGE.png

Decodes the PNG (8-bit RGB or RGBA, greyscale too, not interlaced: what
Chromium's screenshots are) and prints one line of JSON: width, height,
"ink" (the fraction of pixels not page white: any channel below 235) and
"coloured" (pixels whose channels differ by more than 40: strong colour)
and "tinted" (by more than 12: any colour, a heatmap's pale cells too;
grey text and page white are neither). Exit 2 when the file is not such a PNG.
"""
import json
import struct
import sys
import zlib

def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace or ctype not in (0, 2, 4, 6):
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, ctype, interlace))
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride = zlib.decompress(idat), w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, bpp, rows

def main():
    try:
        w, h, bpp, rows = decode(open(sys.argv[1], "rb").read())
    except (OSError, ValueError, zlib.error, TypeError, struct.error) as e:
        print("png_ink: %s: %s" % (sys.argv[1], e))
        return 2
    ink = coloured = tinted = 0
    for line in rows:
        for x in range(w):
            px = line[x * bpp:x * bpp + 3] if bpp >= 3 else line[x * bpp:x * bpp + 1] * 3
            if min(px) < 235:
                ink += 1
            if max(px) - min(px) > 40:
                coloured += 1
            if max(px) - min(px) > 12:
                tinted += 1
    print(json.dumps({"width": w, "height": h, "ink": ink / float(w * h or 1), "coloured": coloured, "tinted": tinted}))
    return 0

sys.exit(main())
