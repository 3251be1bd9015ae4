#!/usr/bin/env python3
"""What a PNG fallback costs at each zlib level and row filter: `thumbgen site`'s defaults.

`thumbgen site` writes a PNG fallback (beside the WebP) for every image with alpha, at each
width of its ladder. This times libvips' PNG encoder (pyvips, the libvips thumbgen links) on
those outputs at zlib levels 1, 2, 4 and 6 (libvips' default is 6), each with no row filter
(libvips' and sharp's default), `sub` and adaptive (`all`, sharp's `adaptiveFiltering`), and
as a 256-colour palette, and prints per case the total encode time (median of REPEATS, each
case in turn per image so that a drift of the machine's speed is shared) and the total bytes,
and each as a ratio to level 6 without a filter.

    scripts/bench_png_fallback.py FOLDER [--widths 320,640,960,1280,1920] [--repeats 3]

FOLDER: the images (any libvips reads); only those with alpha are used, as `thumbgen site`
gives only those a PNG fallback. Each is made `width` wide (never wider than itself) once,
with its alpha, and kept in memory, so only the encode is timed. Standard library and pyvips.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import pyvips

LEVELS = (1, 2, 4, 6)
FILTERS = ("none", "sub", "all")
DEFAULT = 6


def outputs(folder, widths):
    """(name, width, image in memory) for each alpha image of `folder` at each width of
    `widths` up to its own (its own width once where the ladder passes it)."""
    for path in sorted(p for p in Path(folder).iterdir() if p.is_file()):
        try:
            header = pyvips.Image.new_from_file(str(path))
        except pyvips.Error:
            continue
        if not header.hasalpha():
            continue
        sizes = sorted({min(w, header.width) for w in widths})
        for width in sizes:
            image = pyvips.Image.thumbnail(str(path), width, height=10_000_000)
            yield path.name, width, image.copy_memory()


def timed(save):
    start = time.perf_counter()
    data = save()
    return time.perf_counter() - start, len(data)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--widths", default="320,640,960,1280,1920")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    widths = [int(w) for w in args.widths.split(",")]
    cases = {f"level {level}, filter {name}":
             (lambda image, level=level, name=name: image.pngsave_buffer(compression=level, filter=name, strip=True))
             for level in LEVELS for name in FILTERS}
    cases["palette (level 6)"] = lambda image: image.pngsave_buffer(compression=DEFAULT, strip=True, palette=True, Q=75)
    seconds = {name: 0.0 for name in cases}
    sizes = {name: 0 for name in cases}
    count = 0
    for name, width, image in outputs(args.folder, widths):
        count += 1
        for case, save in cases.items():
            runs = [timed(lambda: save(image)) for _ in range(args.repeats)]
            seconds[case] += statistics.median(t for t, _ in runs)
            sizes[case] += runs[0][1]
        print(f"  {name} at {width}: done", file=sys.stderr, flush=True)
    if not count:
        sys.exit(f"no image with alpha in {args.folder}")
    base = f"level {DEFAULT}, filter none"
    print(f"{count} PNG outputs (the alpha images of {args.folder} at {args.widths}), "
          f"median of {args.repeats} encodes each")
    print(f"| encode | seconds | bytes | seconds / {base} | bytes / {base} |")
    print("|---|---|---|---|---|")
    for case in cases:
        print(f"| {case} | {seconds[case]:.2f} | {sizes[case]:,} | {seconds[case] / seconds[base]:.2f} "
              f"| {sizes[case] / sizes[base]:.3f} |")


if __name__ == "__main__":
    main()
