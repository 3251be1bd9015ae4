#!/usr/bin/env python3
"""The static-site workload of scripts/bench (`scripts/bench --workload static`).

What a static-site generator asks for: every photo of the wallpapers corpus at the widths
320, 640 and 1280 (the width alone: the height follows the aspect ratio), never enlarged, in
WebP (quality 80, alpha kept) and JPEG (quality 80, alpha flattened onto white), and with
--static-avif in AVIF too (quality 50, sharp's default and thumbgen's), metadata stripped.
bench.py's `run --workload static` calls run_workload() here, which times, round-robin, each
contender selected by --only (all of them by default, thumbgen-base when a baseline is given):

    thumbgen              the release binary on the corpus folder, with its defaults:
                          `thumbgen CORPUS --out OUT --size 320,640,1280 --format webp,jpeg
                          --follow-links --cache-dir OUT.cache`
    thumbgen-base         the same command with the baseline binary (--baseline)
    pyvips-1decode        2 processes, half of the files each: one thumbnail() a source, at
                          1280, kept in memory; 640 and 320 resized from it
    eleventy-style        2 processes, half of the files each: what eleventy-img does with
                          sharp, one thumbnail() (so one decode) per output
    vipsthumbnail-static  2 processes, half of the files each, each a shell script running
                          libvips' CLI once per width and format over its files

    bench_static.py worker {1decode,eleventy} LISTFILE OUTDIR FORMAT...
        one worker process of pyvips-1decode or eleventy-style (started by the timing).

HOW EACH CONTENDER TREATS A SOURCE NARROWER THAN A WIDTH. None enlarges, and all four write
one output at the source's own width for all the widths it cannot reach, so that each source
has the outputs sorted({min(w, source width) for w in WIDTHS}) in each format (a 400-pixel
screenshot: 320 and 400; a 256-pixel one: 256 alone), the rule eleventy-img's own widths
follow. thumbgen makes one row per width and format; the rows of widths the source cannot
reach all render to the same path ({name}-{w}x{h}.{ext} at the source's size), the first
writes it and the others are reported `unchanged` (they still cost thumbgen a render each).
Where that output is the source itself (a JPEG or WebP already at the size and in the
format, with no ICC profile), thumbgen copies the compressed data without re-encoding it
(its pass-through, which its default quality allows); the other contenders re-encode it.
pyvips-1decode decodes once at min(1280, width) and writes each width the in-memory image
can still give, once. eleventy-style reads the header first (as eleventy-img reads the
metadata) and thumbnails each valid width. vipsthumbnail-static is given, for each width,
only the files for which that width is a new output (the timing process knows every source's
size from vipsheader): the files at least that wide, and the files narrower than it but at
least as wide as the next smaller width (any width, for 320), whose output at their own size
comes from this width's run; without that, each width a source cannot reach would write the
same image again under another name.

HOW JPEG ALPHA IS FLATTENED ONTO WHITE. thumbgen flattens onto each row's `background`,
whose default is #ffffff (docs/manifest.md, column `background`), so no flag is needed. The pyvips
scripts pass `background=[255, 255, 255]` to jpegsave, and vipsthumbnail `background=255`
in its output options ([Q=80,strip,optimize_coding,background=255]): every libvips saver
that cannot store alpha flattens it onto its `background` argument, black unless given. All
four resample the colour premultiplied by alpha, then flatten, so they agree.

WHAT IS NOT EQUAL. JPEGs are written by all with libvips' jpegsave settings thumbgen uses
(Q 80, optimize_coding, 4:2:0, baseline) and WebPs with effort 4. Colour: thumbgen converts
a source with an ICC profile to sRGB unless the profile is sRGB by its content; every
profile in these packages is an sRGB variant, so none of the four transforms any pixels
here. The pyvips scripts would transform a profile without "sRGB" in it (a name check,
cheap and enough for a guard); vipsthumbnail can only be told `-e srgb` for all its files,
which would also send every untagged image through XYZ and back, work no other contender
does, so it is not told (a source with another profile would come out unconverted). AVIF is
written by all through libvips' heifsave with its defaults (effort 4, chroma subsampled at
this quality), as thumbgen does; sharp itself would keep 4:4:4 chroma by default.
Resampling: eleventy-style and vipsthumbnail-static both run libvips' thumbnail(), so their
pixels agree; thumbgen's agree with theirs for PNG and WebP sources, but for JPEGs it picks
its own shrink-on-load (`balanced`) and box-then-kernel scheme (docs/images.md), so a JPEG source's
outputs differ by a few levels; pyvips-1decode's 640 and 320 are resampled a second time,
from the 1280 image, and a height may round a pixel apart from the others' (the checks allow
a pixel).

Standard library only in the timing process; each worker imports pyvips itself.
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

WIDTHS = (320, 640, 1280)
# A height no output reaches: thumbnail()'s box is then the width alone.
TALL = 10_000_000
FORMATS = ("webp", "jpeg")
AVIF = "avif"
QUALITY = {"webp": 80, "jpeg": 80, "avif": 50}
EFFORT = 4   # WebP's and AVIF's encoder effort: libvips', sharp's and thumbgen's default
EXTENSIONS = {"webp": "webp", "jpeg": "jpg", "avif": "avif"}
LOADERS = {"webp": "webpload", "jpeg": "jpegload", "avif": "heifload"}
WHITE = [255, 255, 255]
CONTENDERS = ("thumbgen", "thumbgen-base", "pyvips-1decode", "eleventy-style", "vipsthumbnail-static")
RIVALS = ("pyvips-1decode", "eleventy-style", "vipsthumbnail-static")


def output_widths(width):
    """The widths a source `width` pixels wide is written at: each of WIDTHS it reaches, and
    its own width once for all those it does not (never enlarged)."""
    return sorted({min(w, width) for w in WIDTHS})


# ---------------------------------------------------------------------------------------------
# Workers (their own processes, started by the timing; they import pyvips)


def save(image, stem, outdir, fmt):
    """Writes `image` as {stem}-{w}x{h}.{ext} (thumbgen's default names) in `fmt`, stripped."""
    path = f"{outdir}/{stem}-{image.width}x{image.height}.{EXTENSIONS[fmt]}"
    if fmt == "jpeg":
        # optimize_coding as thumbgen (and sharp, by default) write JPEGs; alpha flattened
        # onto white by the saver.
        image.jpegsave(path, Q=QUALITY[fmt], strip=True, optimize_coding=True, background=WHITE)
    elif fmt == "webp":
        image.webpsave(path, Q=QUALITY[fmt], strip=True, effort=EFFORT)
    else:
        image.heifsave(path, Q=QUALITY[fmt], strip=True, compression="av1", effort=EFFORT)


def to_srgb(image):
    """A guard for sources this corpus lacks: pixels under an ICC profile that is not some
    sRGB (judged by the name in its bytes, which is enough here) are transformed to sRGB, as
    thumbnail()'s export_profile would do; sRGB-tagged and untagged images pass untouched."""
    if image.get_typeof("icc-profile-data") and b"sRGB" not in image.get("icc-profile-data"):
        return image.icc_transform("srgb", embedded=True)
    return image


def worker_1decode(pyvips, path, outdir, formats):
    """One decode a source, at the largest width; each smaller width resized from memory."""
    stem = Path(path).stem
    base = to_srgb(pyvips.Image.thumbnail(path, max(WIDTHS), height=TALL, size="down")).copy_memory()
    written = set()
    for width in sorted(WIDTHS, reverse=True):
        if base.width <= width:
            image = base   # the source is this narrow: its own width stands for this width
        elif base.hasalpha():
            # Resampled premultiplied, as thumbnail() does, so that no dark fringe appears
            # where transparent pixels meet opaque ones.
            image = (base.premultiply().resize(width / base.width).unpremultiply()
                     .cast(base.format))
        else:
            image = base.resize(width / base.width)
        if image.width in written:
            continue
        written.add(image.width)
        for fmt in formats:
            save(image, stem, outdir, fmt)


def worker_eleventy(pyvips, path, outdir, formats):
    """eleventy-img's way with sharp: the header once for the valid widths, then one
    independent thumbnail (one decode) per output, formats in the outer loop as it has them."""
    stem = Path(path).stem
    header = pyvips.Image.new_from_file(path)   # the header only: no pixel is decoded here
    orientation = header.get("orientation") if header.get_typeof("orientation") else 1
    width = header.height if orientation >= 5 else header.width   # as it will stand upright
    for fmt in formats:
        for w in output_widths(width):
            save(to_srgb(pyvips.Image.thumbnail(path, w, height=TALL, size="down")), stem, outdir, fmt)


def run_worker(kind, listfile, outdir, formats):
    import pyvips
    work = {"1decode": worker_1decode, "eleventy": worker_eleventy}[kind]
    failures = 0
    for path in Path(listfile).read_text().splitlines():
        try:
            work(pyvips, path, outdir, formats)
        except Exception as error:  # noqa: BLE001 - reported, then the exit status says so
            failures += 1
            print(f"{path}: {error}", file=sys.stderr)
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# Contenders' commands (in the timing process)


def vipsthumbnail_script(path, outdir, sources, widths_of, formats):
    """Writes a shell script running vipsthumbnail once per width and format over `sources`,
    each width given only the files for which it is a new output (module docstring)."""
    lines = ["#!/bin/sh",
             "# Generated by scripts/bench_static.py: one vipsthumbnail per width and format.",
             "status=0"]
    for fmt in formats:
        options = f"Q={QUALITY[fmt]},strip"
        if fmt == "jpeg":
            options += ",optimize_coding,background=255"   # white under alpha (docstring)
        else:
            options += f",effort={EFFORT}" + (",compression=av1" if fmt == AVIF else "")
        for width in WIDTHS:
            files = [s.link for s in sources if width in first_widths(widths_of[s.link])]
            if not files:
                continue
            # "Wx10000000>": a box as wide as the width and taller than any output, shrinking
            # only (">": never enlarging), so the width alone decides.
            lines.append(" ".join([
                "vipsthumbnail", "--size", shlex.quote(f"{width}x{TALL}>"),
                "-o", shlex.quote(f"{outdir}/%s-{width}.{EXTENSIONS[fmt]}[{options}]"),
                *(shlex.quote(str(f)) for f in files), "|| status=1"]))
    lines.append("exit $status")
    path.write_text("\n".join(lines) + "\n")
    return path


def first_widths(source_width):
    """The requested widths that give a source a new output: for each output width, the
    smallest requested width that makes it (640 for a 400-pixel source's 400)."""
    firsts, made = [], set()
    for width in sorted(WIDTHS):
        if min(width, source_width) not in made:
            made.add(min(width, source_width))
            firsts.append(width)
    return firsts


def contender_commands(name, outdir, files, args, formats):
    me = [sys.executable, str(Path(__file__).resolve()), "worker"]
    if name in ("thumbgen", "thumbgen-base"):
        binary = args.thumbgen if name == "thumbgen" else args.baseline
        # --follow-links because every entry of the corpus folder is a symlink into
        # /usr/share, and a walked folder's links are left alone by default (docs/command-line.md, Folders
        # as input): without it thumbgen finds no image. JPEG's background is #ffffff by
        # default. A fresh, empty cache each run (outdir is new): the cold case, storing into
        # the cache included, as in the other workloads. With the index a site reads (its
        # srcsets, markup and, where the build has them, the default placeholders).
        return [[binary, str(files["corpus"]), "--out", str(outdir),
                 "--size", ",".join(map(str, WIDTHS)), "--format", ",".join(formats),
                 "--follow-links", "--cache-dir", f"{outdir}.cache", "--index", f"{outdir}.index.json"]]
    if name in ("pyvips-1decode", "eleventy-style"):
        kind = "1decode" if name == "pyvips-1decode" else "eleventy"
        return [me + [kind, str(half), str(outdir), *formats] for half in files["halves"]]
    if name == "vipsthumbnail-static":
        return [["sh", str(script)] for script in files["vipsthumbnail"]]
    raise ValueError(name)


# ---------------------------------------------------------------------------------------------
# Checks


def read_headers(paths):
    """{path: (width, height, bands, loader)} as vipsheader reads them (each file opened by
    its libvips loader, header only); a file it cannot read is left out. vipsheader goes on
    past a file it cannot read."""
    headers = {}
    line_re = re.compile(r"(.*): (\d+)x(\d+) \S+, (\d+) bands?, \S+, (\S+)$")
    for i in range(0, len(paths), 256):
        listing = subprocess.run(["vipsheader", *map(str, paths[i:i + 256])],
                                 capture_output=True, text=True).stdout
        for line in listing.splitlines():
            match = line_re.match(line)
            if match:
                headers[match[1]] = (int(match[2]), int(match[3]), int(match[4]), match[5])
    return headers


def check_outputs(run, outdir, expected, formats):
    """Checks every file in `outdir` against `expected` ({source index: (width, height)}):
    named after a source, in a format asked for, decoding (its header) as that format, at one
    of the source's output widths with the height of its aspect ratio (to a pixel), and no
    output twice. Fills run.outputs (valid outputs) and run.strays (problems); returns the
    valid outputs per format."""
    extension_format = {EXTENSIONS[fmt]: fmt for fmt in formats}
    paths = sorted(p for p in outdir.rglob("*") if p.is_file())
    headers = read_headers(paths)
    found = {}
    for path in paths:
        index = re.match(r"(\d+)-", path.name)
        fmt = extension_format.get(path.suffix[1:])
        header = headers.get(str(path))
        if not index or fmt is None or int(index[1]) not in expected:
            run.strays.append(f"{path.name}: not an output asked for")
            continue
        source_w, source_h = expected[int(index[1])]
        if header is None:
            run.strays.append(f"{path.name}: vipsheader cannot read it")
        elif header[3] != LOADERS[fmt]:
            run.strays.append(f"{path.name}: read by {header[3]}, not {LOADERS[fmt]}")
        elif header[0] not in output_widths(source_w):
            run.strays.append(f"{path.name}: {header[0]} wide; the source's widths are "
                              f"{output_widths(source_w)}")
        elif abs(header[1] - source_h * header[0] / source_w) > 1:
            run.strays.append(f"{path.name}: {header[0]}x{header[1]} is not the source's aspect "
                              f"ratio ({source_w}x{source_h})")
        elif (int(index[1]), fmt, header[0]) in found:
            run.strays.append(f"{path.name}: a second {fmt} at {header[0]} for this source")
        else:
            found[(int(index[1]), fmt, header[0])] = path
    counts = {fmt: sum(1 for (_, f, _) in found if f == fmt) for fmt in formats}
    run.outputs = sum(counts.values())
    missing = [f"{index:03d} {fmt} {w}" for index, (source_w, _) in sorted(expected.items())
               for fmt in formats for w in output_widths(source_w) if (index, fmt, w) not in found]
    if missing:
        run.strays.append(f"{len(missing)} output(s) missing (source index, format, width): "
                          + ", ".join(missing[:6]) + (" ..." if len(missing) > 6 else ""))
    return counts


# ---------------------------------------------------------------------------------------------
# The workload: rounds, checks, table


def run_workload(bench, args, sources, contenders, logdir):
    """Runs the static-site contenders among `contenders` round-robin on `sources` (the
    wallpapers), prints each run, the table and the ratios; returns the number of runs that
    failed or wrote a wrong set of outputs. `bench` is bench.py's module (its timing, sampler
    and corpus helpers), handed in because bench.py runs as __main__ and imports this one."""
    names = [name for name in CONTENDERS if name in contenders]
    if not names:
        print(f"workload static: no contender selected for it (its contenders: {', '.join(CONTENDERS)})")
        return 0
    bench_dir = Path(args.bench_dir)
    formats = FORMATS + ((AVIF,) if args.static_avif else ())
    dims = bench.image_dimensions([s.link for s in sources])
    unread = [s.link.name for s in sources if str(s.link) not in dims]
    if unread:
        sys.exit(f"bench: error: vipsheader cannot read {', '.join(unread[:5])}")
    widths_of = {s.link: dims[str(s.link)][0] for s in sources}
    expected = {int(s.link.name.split("-", 1)[0]): dims[str(s.link)] for s in sources}
    per_format = sum(len(output_widths(w)) for w, _ in expected.values())
    halves = bench.split_in_two(sources)
    files = {
        "corpus": sources[0].link.parent,
        "halves": [bench.write_list(bench_dir / f"static-half{i + 1}.txt", h) for i, h in enumerate(halves)],
        "vipsthumbnail": [vipsthumbnail_script(bench_dir / f"static-vipsthumbnail-half{i + 1}.sh",
                                               bench_dir / "out" / "vipsthumbnail-static", h,
                                               widths_of, formats)
                          for i, h in enumerate(halves)],
    }
    print(f"workload static: {len(sources)} files at widths {', '.join(map(str, WIDTHS))} (never "
          f"enlarged), in {', '.join(f'{fmt} q{QUALITY[fmt]}' for fmt in formats)}: {per_format} "
          f"outputs per format; halves for the 2-process contenders: {len(halves[0])} + "
          f"{len(halves[1])} files")
    print(f"work folder: {bench_dir} (corpus/, static-half*.txt, static-vipsthumbnail-half*.sh, out/, logs/)")
    bench.warm_page_cache(sources)
    bench.print_load("before")

    runs_by_contender = {name: [] for name in names}
    problems = 0
    for round_no in range(1, args.rounds + 1):
        for name in bench.round_order(names, round_no):
            outdir = bench_dir / "out" / name
            bench.set_aside(outdir, bench_dir)
            bench.set_aside(Path(f"{outdir}.cache"), bench_dir)
            outdir.mkdir(parents=True)
            run = bench.Run(name, round_no, "static")
            bench.timed_run(run, contender_commands(name, outdir, files, args, formats), logdir)
            counts = check_outputs(run, outdir, expected, formats)
            runs_by_contender[name].append(run)
            print(f"static round {round_no}/{args.rounds} {name:<20} wall {run.wall:6.2f} s  "
                  f"cpu {run.cpu:6.2f} s  peak rss {run.rss_max_kib / 1024:6.1f} MiB  "
                  f"tree {run.tree_kib / 1024:6.1f} MiB  outputs "
                  + "  ".join(f"{fmt} {n}/{per_format}" for fmt, n in counts.items())
                  + f"  exit {','.join(map(str, run.exit_codes))}", flush=True)
            if run.failed or run.strays or run.outputs != per_format * len(formats):
                run.flagged = True
                problems += 1
                print(f"bench: error: {name} (round {round_no}) wrote {run.outputs} valid outputs "
                      f"of {per_format * len(formats)}"
                      + (f", exit status {','.join(map(str, run.exit_codes))}" if run.failed else ""),
                      file=sys.stderr, flush=True)
                for line in run.strays[:8]:
                    print(f"    {line}")
                if len(run.strays) > 8:
                    print(f"    ... and {len(run.strays) - 8} more")
                print(bench.log_tail(logdir, run) or "    (no stderr)")
    bench.print_load("after")
    print()
    print(f"workload static - input: {len(sources)} files, {sum(s.size for s in sources):,} bytes; "
          f"widths {','.join(map(str, WIDTHS))}, {' + '.join(formats)}; {per_format * len(formats)} "
          f"outputs expected a run; {os.cpu_count()} CPUs")
    print_table(bench, runs_by_contender, per_format * len(formats))
    print_ratios(bench, runs_by_contender)
    return problems


def print_table(bench, runs_by_contender, expected):
    """The medians per contender, with the columns of bench.py's table that apply here."""
    header = (f"{'contender':<20} {'procs':>5} {'wall_s':>7} {'cpu_s':>7} {'peak_rss_MB':>11} "
              f"{'parent_MB':>9} {'kids_MB':>7} {'tree_MB':>7} {'anon_MB':>7} {'outputs':>7} "
              f"{'wall_range':>12}")
    print(header)
    print("-" * len(header))
    mib = lambda runs, attribute: bench.median(runs, attribute) / 1024
    for name, runs in runs_by_contender.items():
        outputs = min(r.outputs for r in runs)
        mark = "" if outputs == expected and not any(r.flagged for r in runs) else " !"
        procs = f"{runs[0].processes}+{max(r.tree_processes for r in runs) - runs[0].processes}"
        print(f"{name:<20} {procs:>5} {bench.median(runs, 'wall'):>7.2f} {bench.median(runs, 'cpu'):>7.2f} "
              f"{mib(runs, 'rss_max_kib'):>11.1f} {mib(runs, 'parent_kib'):>9.1f} "
              f"{mib(runs, 'kids_kib'):>7.1f} {mib(runs, 'tree_kib'):>7.1f} {mib(runs, 'tree_anon_kib'):>7.1f} "
              f"{outputs:>7} {min(r.wall for r in runs):>5.2f}-{max(r.wall for r in runs):<6.2f}{mark}")
    print(f"(medians of {len(next(iter(runs_by_contender.values())))} rounds; MB = MiB; procs = "
          f"processes started + most descendants seen (vipsthumbnail-static: its vipsthumbnail "
          f"runs under the two shells); peak_rss_MB = the largest single process (GNU time; for "
          f"thumbgen the larger of the parent and any worker, for vipsthumbnail-static of any "
          f"vipsthumbnail run); sampled every {bench.SAMPLE_INTERVAL * 1000:.0f} ms: parent_MB = "
          f"the started process's own peak, kids_MB = peak of the sum over its descendants, "
          f"tree_MB = peak of the sum over all, anon_MB = the same for anonymous memory; "
          f"outputs = fewest valid outputs in any round (every format, decoded header at the "
          f"right width), expected {expected}; wall_range = fastest-slowest round; '!' = a "
          f"failure or a wrong set of outputs)")


def print_ratios(bench, runs_by_contender):
    """thumbgen's wall (and CPU) against each other contender's, round by round; against the
    baseline build's, bench.py's baseline line (the issue's check: within 3%)."""
    for other in RIVALS:
        walls = bench.per_round_ratios(runs_by_contender, "thumbgen", other, "wall")
        if not walls:
            continue
        cpus = bench.per_round_ratios(runs_by_contender, "thumbgen", other, "cpu")
        print(f"static: wall thumbgen / {other:<20} = {bench.describe_per_round(walls, 2)}   "
              f"cpu {bench.describe_per_round(cpus, 2)}   (below 1 = thumbgen faster)")
    bench.print_baseline_summary("static", runs_by_contender)


def main():
    if len(sys.argv) < 6 or sys.argv[1] != "worker" or sys.argv[2] not in ("1decode", "eleventy"):
        sys.exit(__doc__)
    formats = sys.argv[5:]
    unknown = sorted(set(formats) - set(QUALITY))
    if unknown:
        sys.exit(f"bench_static: unknown format(s) {', '.join(unknown)}")
    return run_worker(sys.argv[2], sys.argv[3], sys.argv[4], formats)


if __name__ == "__main__":
    sys.exit(main())
