"""check_png.py FILE [MIN_COLOURS [MIN_COLOURED]]: a PNG (RGB/RGBA/palette,
8 bit, no interlace) whose picture is not blank: decoded with zlib only (no
packages), it must hold at least MIN_COLOURS distinct colours, 0.5 % of its
pixels must be far from white, and at least MIN_COLOURED pixels (default 0)
must be saturated colour (max - min channel > 80: plotted data, not the gray
of text, axes and grid). Prints the counts; exit 1 when blank or not a PNG."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG (signature)")
    pos, idat, hdr, pal = 8, b"", None, None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            pal = [tuple(body[i:i + 3]) for i in range(0, len(body), 3)]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or interlace or ctype not in (2, 3, 6):
        raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour type {ctype}, interlace {interlace})")
    bpp = {2: 3, 3: 1, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    stride = w * bpp
    try:
        import numpy as np  # a test dependency already (python3-numpy); the pure loop below is the fallback
    except ImportError:
        np = None
    if np is not None:
        img = np.zeros((h, stride), dtype=np.int32)
        prev = np.zeros(stride, dtype=np.int32)
        for y in range(h):
            f = raw[y * (stride + 1)]
            line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
            if f == 1:  # Sub: a running sum per channel
                line = np.cumsum(line.reshape(w, bpp), axis=0).reshape(-1) & 255
            elif f == 2:
                line = (line + prev) & 255
            elif f in (3, 4):
                out = line.tolist()
                pv = prev.tolist()
                for i in range(stride):
                    a = out[i - bpp] if i >= bpp else 0
                    b = pv[i]
                    if f == 3:
                        out[i] = (out[i] + (a + b) // 2) & 255
                    else:
                        c = pv[i - bpp] if i >= bpp else 0
                        p = a + b - c
                        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                        out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                line = np.array(out, dtype=np.int32)
            img[y] = line
            prev = line
        if ctype == 3:
            rgb = np.array(pal, dtype=np.int32)[img]
        else:
            rgb = img.reshape(h, w, bpp)[:, :, :3]
        return w, h, rgb.reshape(-1, 3)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
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
        rows.append(bytes(line))
        prev = line
    px = []
    for line in rows:
        for x in range(w):
            if ctype == 3:
                px.append(pal[line[x]])
            else:
                px.append(tuple(line[x * bpp:x * bpp + 3]))
    return w, h, px


def main():
    path = sys.argv[1]
    need = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    need_coloured = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    w, h, px = decode(path)
    if hasattr(px, "shape"):
        colours = len(set((px[:, 0] << 16 | px[:, 1] << 8 | px[:, 2]).tolist()))
        ink = int((px.min(axis=1) < 200).sum())
        coloured = int((px.max(axis=1) - px.min(axis=1) > 80).sum())
    else:
        colours = len(set(px))
        ink = sum(1 for p in px if min(p) < 200)
        coloured = sum(1 for p in px if max(p) - min(p) > 80)
    print(f"{path}: {w}x{h}, {colours} colours, {100.0 * ink / len(px):.2f} % ink, {coloured} coloured pixels")
    if colours < need or ink < 0.005 * len(px) or coloured < need_coloured:
        raise SystemExit(f"{path}: blank picture ({colours} colours, {ink} dark pixels, {coloured} coloured)")


main()
