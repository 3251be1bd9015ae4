#!/usr/bin/env python3
"""Seeds for the metadata fuzz targets (scripts/fuzz --parsers), from image files.

    fuzz_seeds.py exif|xmp|iptc DIR < paths   the blocks libvips would give: `exif-data`
                                              (TIFF), `xmp-data`, `iptc-data` (APP13 payload or
                                              bare IIM), found in JPEG, PNG, WebP and TIFF files
    fuzz_seeds.py splicer DIR < paths         each JPEG, PNG or WebP file behind the header the
                                              metadata-splicer target reads, with and without
                                              small blocks

One file per seed in DIR, named by its SHA-1; files that hold no such block give no seed, and
blocks larger than a JPEG segment's 65,533 bytes are left out.
"""
import hashlib
import os
import struct
import sys


def jpeg_blocks(data):
    """(kind, bytes) for each APP1 EXIF/XMP and APP13 segment before the scan."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker in (0xD9, 0xDA):
            break
        size = struct.unpack(">H", data[at + 2:at + 4])[0]
        body = data[at + 4:at + 2 + size]
        if marker == 0xE1 and body.startswith(b"Exif\0\0"):
            yield "exif", body[6:]
        elif marker == 0xE1 and body.startswith(b"http://ns.adobe.com/xap/1.0/\0"):
            yield "xmp", body[29:]
        elif marker == 0xED:
            yield "iptc", body
        at += 2 + size


def png_blocks(data):
    """eXIf, and an uncompressed iTXt XML:com.adobe.xmp."""
    at = 8
    while at + 12 <= len(data):
        size = struct.unpack(">I", data[at:at + 4])[0]
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + size]
        if kind == b"eXIf":
            yield "exif", body
        elif kind == b"iTXt" and body.startswith(b"XML:com.adobe.xmp\0\0"):
            rest = body[len(b"XML:com.adobe.xmp\0\0") + 1:]
            rest = rest[rest.index(b"\0") + 1:] if b"\0" in rest else rest  # language tag
            rest = rest[rest.index(b"\0") + 1:] if b"\0" in rest else rest  # translated keyword
            yield "xmp", rest
        at += 12 + size


def webp_blocks(data):
    at = 12
    while at + 8 <= len(data):
        size = struct.unpack("<I", data[at + 4:at + 8])[0]
        kind, body = data[at:at + 4], data[at + 8:at + 8 + size]
        if kind == b"EXIF":
            yield "exif", body[6:] if body.startswith(b"Exif\0\0") else body
        elif kind == b"XMP ":
            yield "xmp", body
        at += 8 + size + (size & 1)


def tiff_blocks(data):
    """The file itself as EXIF, and IFD0's XMP (700) and IPTC (33723) values."""
    yield "exif", data
    order = "<" if data[:2] == b"II" else ">"
    try:
        ifd = struct.unpack(order + "I", data[4:8])[0]
        count = struct.unpack(order + "H", data[ifd:ifd + 2])[0]
        for index in range(count):
            entry = data[ifd + 2 + 12 * index:ifd + 14 + 12 * index]
            tag, kind, number, value = struct.unpack(order + "HHII", entry)
            size = number * {1: 1, 2: 1, 3: 2, 4: 4, 7: 1}.get(kind, 0)
            if tag in (700, 33723) and size > 4:
                yield ("xmp" if tag == 700 else "iptc"), data[value:value + size]
    except (struct.error, IndexError):
        return


def blocks(data):
    if data[:2] == b"\xff\xd8":
        return jpeg_blocks(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return png_blocks(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return webp_blocks(data)
    if data[:4] in (b"II*\0", b"MM\0*"):
        return tiff_blocks(data)
    return iter(())


def splicer_seeds(data):
    """The header of Tests/Fuzz/metadata-splicer.swift, then the file."""
    kind = {b"\xff\xd8": 0, b"\x89P": 1, b"RI": 2}.get(data[:2])
    if kind is None:
        return
    yield bytes([kind]) + data
    parts = [b"\0" * 128, b"II*\0\x08\0\0\0\0\0\0\0", b"<x:xmpmeta xmlns:x='adobe:ns:meta/'/>",
             b"Photoshop 3.0\0"]
    yield bytes([kind | 0x3C]) + b"".join(struct.pack(">H", len(p)) + p for p in parts) + data


def main():
    what, folder = sys.argv[1], sys.argv[2]
    for path in sys.stdin.read().splitlines():
        try:
            with open(path, "rb") as f:
                data = f.read()
            found = splicer_seeds(data) if what == "splicer" else (b for k, b in blocks(data) if k == what)
            for seed in found:
                # Blocks that would not fit a JPEG segment (a whole large TIFF) only slow the
                # fuzzer: libFuzzer mutates inputs up to the largest seed's length.
                if seed and (what == "splicer" or len(seed) <= 65533):
                    with open(os.path.join(folder, hashlib.sha1(seed).hexdigest()[:12]), "wb") as f:
                        f.write(seed)
        except (OSError, struct.error, IndexError, ValueError):
            continue


if __name__ == "__main__":
    main()
