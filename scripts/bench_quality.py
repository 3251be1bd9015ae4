#!/usr/bin/env python3
"""What thumbgen's scaling of lossy WebP sources costs in quality (recipe 5, `WebPPlanes`).

Since recipe 5, a still lossy WebP is decoded once into its planes and each size up to half the
full size is their area average; recipe 4 decoded it again per size with libwebp's scaler. This
script measures both against the same image resized straight from the full decode with libvips'
lanczos3 (premultiplied where there is alpha), as PSNR and SSIM, per width:

    scripts/bench_quality.py --thumbgen BIN [--baseline BIN] [--limit 200] [--worst 5] [DIR ...]

DIRs are searched for `.webp` files (default: the benchmark's wallpapers in
/tmp/thumbgen-bench/corpus and ../shared/corpora); only still lossy ones count (a VP8 chunk, no
ANIM), up to --limit. Each is made at the workload's widths (320, 640, 1280, never enlarged) and
at a half and a quarter of its own width (the corpus' test images are small), as PNG so that no
encoder's loss enters the figures, by BIN (and the baseline binary, another thumbgen build,
when given) in one run each with --no-cache. The table gives, per width and binary, the outputs
compared, the median and worst PSNR (dB, over RGB, flattened onto white) and SSIM (luma,
Gaussian window of sigma 1.5), then the --worst lowest-PSNR outputs of BIN by source and size.
Needs pyvips and numpy (`python3 -m pip install pyvips numpy`; scripts/bench installs pyvips).
"""

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

WIDTHS = (320, 640, 1280)
DEFAULT_DIRS = ("/tmp/thumbgen-bench/corpus", str(Path(__file__).resolve().parent.parent.parent / "shared/corpora"))


def is_still_lossy_webp(path):
    """A RIFF WEBP file with a VP8 (lossy) chunk and no animation, read from its chunk list."""
    try:
        data = path.read_bytes()
    except OSError:
        return False
    if len(data) < 20 or data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return False
    chunks, offset = set(), 12
    while offset + 8 <= len(data):
        name, size = data[offset:offset + 4], int.from_bytes(data[offset + 4:offset + 8], "little")
        chunks.add(name)
        offset += 8 + size + (size & 1)
    return b"VP8 " in chunks and b"ANIM" not in chunks


def sources(dirs, limit):
    found = []
    for folder in dirs:
        root = Path(folder)
        if not root.is_dir():
            print(f"skipped {folder}: not a folder", file=sys.stderr)
            continue
        found += sorted(p for p in root.rglob("*.webp") if is_still_lossy_webp(p))
    seen, unique = set(), []
    for path in found:
        key = path.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique[:limit]


def render(binary, rows, outdir):
    """Runs `binary` over a manifest of (src, width, label) rows, PNG out; returns the outputs."""
    manifest = outdir / "manifest.csv"
    with manifest.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["src", "width", "format", "out"])
        for number, (src, width, _) in enumerate(rows):
            writer.writerow([str(src), width, "png", f"{number}.png"])
    subprocess.run([binary, str(manifest), "--out", str(outdir / "out"), "--no-cache", "--quiet"],
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [outdir / "out" / f"{number}.png" for number in range(len(rows))]


def flattened(pyvips, image):
    image = image.colourspace("srgb") if image.interpretation not in ("srgb", "rgb") else image
    if image.hasalpha():
        image = image.flatten(background=[255, 255, 255])
    return image.cast("float")


def reference(pyvips, path, width, height):
    """The full decode resized straight to width × height with lanczos3, premultiplied."""
    full = pyvips.Image.new_from_file(str(path)).autorot()
    hscale, vscale = width / full.width, height / full.height
    if full.hasalpha():
        return full.premultiply().resize(hscale, vscale=vscale, kernel="lanczos3").unpremultiply()
    return full.resize(hscale, vscale=vscale, kernel="lanczos3")


def psnr(numpy, a, b):
    error = float(numpy.mean((a - b) ** 2))
    return 99.0 if error == 0 else 10 * numpy.log10(255.0 ** 2 / error)


def ssim(pyvips, numpy, a, b):
    """Mean SSIM of the luma of two float sRGB images (Wang et al., sigma 1.5)."""
    luma = [[0.299, 0.587, 0.114]]
    x, y = a.recomb(luma), b.recomb(luma)
    blur = lambda image: image.gaussblur(1.5, precision="float")
    mx, my = blur(x), blur(y)
    vx, vy, cov = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    index = ((mx * my * 2 + c1) * (cov * 2 + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))
    return index.avg()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--thumbgen", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--worst", type=int, default=5, help="list this many lowest-PSNR outputs of BIN")
    parser.add_argument("dirs", nargs="*", default=list(DEFAULT_DIRS))
    args = parser.parse_args()
    try:
        import numpy
        import pyvips
    except ImportError as error:
        sys.exit(f"{error.name} is missing: python3 -m pip install pyvips numpy")

    files = sources(args.dirs, args.limit)
    if not files:
        sys.exit("no still lossy WebP found")
    rows = []
    for path in files:
        width = pyvips.Image.new_from_file(str(path)).autorot().width
        wanted = {w: str(w) for w in WIDTHS if w < width}
        for label, part in (("half", 2), ("quarter", 4)):
            if width // part >= 8:
                wanted.setdefault(width // part, label)
        rows += [(path, w, label) for w, label in sorted(wanted.items())]
    binaries = [("thumbgen", args.thumbgen)] + ([("baseline", args.baseline)] if args.baseline else [])
    figures = {}
    with tempfile.TemporaryDirectory(prefix="thumbgen-quality-") as scratch:
        outputs = {}
        for name, binary in binaries:
            folder = Path(scratch) / name
            folder.mkdir()
            outputs[name] = render(binary, rows, folder)
        for number, (path, _, label) in enumerate(rows):
            for name, _ in binaries:
                output = outputs[name][number]
                if not output.exists():
                    figures.setdefault((label, name), []).append(None)
                    continue
                made = pyvips.Image.new_from_file(str(output))
                ref = flattened(pyvips, reference(pyvips, path, made.width, made.height))
                test = flattened(pyvips, made)
                a = numpy.ndarray(buffer=ref.write_to_memory(), dtype=numpy.float32, shape=[ref.height, ref.width, ref.bands])
                b = numpy.ndarray(buffer=test.write_to_memory(), dtype=numpy.float32, shape=[test.height, test.width, test.bands])
                figures.setdefault((label, name), []).append((psnr(numpy, a, b), ssim(pyvips, numpy, ref, test),
                                                              path, made.width, made.height))
    print(f"{len(files)} still lossy WebP sources, {len(rows)} outputs a binary, against lanczos3 from the full decode")
    print()
    print("| width | binary | outputs | PSNR median dB | PSNR worst dB | SSIM median | SSIM worst |")
    print("|---|---|---|---|---|---|---|")
    order = [str(w) for w in WIDTHS] + ["half", "quarter"]
    for label in order:
        for name, _ in binaries:
            values = figures.get((label, name), [])
            measured = [v for v in values if v]
            missing = len(values) - len(measured)
            if not measured:
                continue
            psnrs, ssims = [v[0] for v in measured], [v[1] for v in measured]
            note = f" ({missing} missing)" if missing else ""
            print(f"| {label} | {name} | {len(measured)}{note} | {statistics.median(psnrs):.2f} | {min(psnrs):.2f} "
                  f"| {statistics.median(ssims):.4f} | {min(ssims):.4f} |")
    if args.worst:
        print()
        print(f"The {args.worst} lowest PSNRs of thumbgen's outputs:")
        print()
        print("| source | size | PSNR dB | SSIM |")
        print("|---|---|---|---|")
        ours = [v for (label, name), values in figures.items() if name == "thumbgen" for v in values if v]
        for value in sorted(ours, key=lambda v: v[0])[:args.worst]:
            print(f"| {value[2].name} | {value[3]}×{value[4]} | {value[0]:.2f} | {value[1]:.4f} |")


if __name__ == "__main__":
    main()
