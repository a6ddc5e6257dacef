#!/usr/bin/env python3
"""Mean colour difference between neighbouring pixels of PNG images (Documentation/Benchmarks.md).

Usage: Scripts/color-roughness.py IMAGE.png [IMAGE.png ...]

For each image: the mean, over every pair of horizontally or vertically adjacent pixels, of the
Euclidean distance of their RGB colours in 0...255 units (16-bit images are scaled to 0...255).
0 is a flat image; noise that jumps across a palette scores near 100 or more. Also printed: the
share of pairs more than 64 apart ("jumps").

Reads 8- and 16-bit RGB and RGBA PNGs, non-interlaced (what Fathom writes), with zlib and numpy
only: the PNG specification's filters (W3C PNG, 2nd edition, section 9) undone row by row.
"""
import struct
import sys
import zlib

import numpy as np


def read_png(path):
    """The image as a float array (height, width, 3) in 0...255."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, [], None
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, color_type, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(color_type)
    if channels is None or depth not in (8, 16) or interlace != 0:
        raise ValueError(f"{path}: only non-interlaced 8/16-bit RGB or RGBA is read")
    bpp = channels * depth // 8
    stride = width * bpp
    raw = zlib.decompress(b"".join(idat))
    out = np.zeros((height, stride), dtype=np.uint8)
    previous = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        if kind == 0:
            row = line
        elif kind == 2:
            row = (line + previous) & 255
        elif kind == 1:
            # Sub: a running sum per byte position modulo bpp.
            row = (np.cumsum(line.reshape(width, bpp), axis=0) & 255).reshape(stride)
        else:
            # Average and Paeth depend on the byte just decoded: one byte at a time.
            row = line.tolist()
            up = previous.tolist()
            for i in range(stride):
                a = row[i - bpp] if i >= bpp else 0
                b = up[i]
                if kind == 3:
                    row[i] = (row[i] + ((a + b) >> 1)) & 255
                else:
                    c = up[i - bpp] if i >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            row = np.array(row, dtype=np.int32)
        out[y] = row
        previous = row
    if depth == 16:
        samples = (out[:, 0::2].astype(np.float64) * 256 + out[:, 1::2]) / 257
    else:
        samples = out.astype(np.float64)
    return samples.reshape(height, width, channels)[:, :, :3]


def roughness(image):
    """(mean neighbour distance, share of neighbour pairs more than 64 apart)."""
    dx = np.sqrt(((image[:, 1:] - image[:, :-1]) ** 2).sum(axis=2)).ravel()
    dy = np.sqrt(((image[1:] - image[:-1]) ** 2).sum(axis=2)).ravel()
    d = np.concatenate([dx, dy])
    return d.mean(), (d > 64).mean()


def main():
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(64)
    for path in sys.argv[1:]:
        image = read_png(path)
        mean, jumps = roughness(image)
        print(f"{path}: {image.shape[1]}x{image.shape[0]}, mean neighbour difference {mean:.2f}, jumps > 64: {100 * jumps:.1f}%")


if __name__ == "__main__":
    main()
