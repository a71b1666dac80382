"""A PNG read back with zlib and struct (no Pillow): size and RGB pixels, for the screenshots.
8-bit RGB or RGBA, not interlaced: what Chromium writes. Rows of filter None, Sub and Up are
undone with numpy, Average and Paeth byte by byte."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class Image:
    width: int
    height: int
    rgb: npt.NDArray[np.uint8]
    """height x width x 3."""


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    assert data[:8] == SIGNATURE, "not a PNG"
    found, i = [], 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i : i + 4])
        kind, body = data[i + 4 : i + 8], data[i + 8 : i + 8 + n]
        (crc,) = struct.unpack(">I", data[i + 8 + n : i + 12 + n])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in {kind!r}"
        found.append((kind, body))
        i += 12 + n
    return found


def _paeth_row(line: bytearray, prev: bytes, bpp: int) -> None:
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
        line[x] = (line[x] + pred) & 0xFF


def _average_row(line: bytearray, prev: bytes, bpp: int) -> None:
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        line[x] = (line[x] + ((a + prev[x]) >> 1)) & 0xFF


def read(data: bytes) -> Image:
    chunks = _chunks(data)
    assert chunks[0][0] == b"IHDR" and chunks[-1][0] == b"IEND"
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"))
    assert len(raw) == height * (stride + 1)
    out = np.zeros((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1)
        if kind == 0:
            line = row.copy()
        elif kind == 1:  # Sub: a running sum per channel, modulo 256
            line = (np.cumsum(row.reshape(width, bpp).astype(np.uint32), axis=0) & 0xFF).astype(np.uint8).ravel()
        elif kind == 2:
            line = row + prev
        else:
            buf = bytearray(row.tobytes())
            (_average_row if kind == 3 else _paeth_row)(buf, prev.tobytes(), bpp)
            line = np.frombuffer(bytes(buf), dtype=np.uint8)
        out[y] = line
        prev = out[y]
    pixels = out.reshape(height, width, bpp)[:, :, :3]
    return Image(width, height, np.ascontiguousarray(pixels))
