#!/usr/bin/env python3
"""The timing half of scripts/bench (run that; it does the set-up first).

    bench.py run --bench-dir DIR --rounds N --only LIST --thumbgen BIN --packages PKG...
        builds the corpus from the packages' files, runs the contenders round-robin, prints the
        table of medians; exits 1 if any run failed or any output count is short.
    bench.py worker {pyvips,pillow} LISTFILE OUTDIR
        one contender's worker process (started by `run`), thumbnailing the files in LISTFILE.

Standard library only, except that each worker imports its own imaging library.
"""

import argparse
import csv
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

SIZE = 256
QUALITY = 80
CONTENDERS = ("thumbgen", "pyvips", "vipsthumbnail", "pillow")


# ---------------------------------------------------------------------------------------------
# Corpus


@dataclass
class Source:
    path: Path      # the installed file
    package: str
    fmt: str        # jpg, png or webp, from the file's magic bytes
    size: int       # bytes
    link: Path = None  # its uniquely named symlink in the corpus folder


def sniff_format(path):
    """jpg, png or webp from the first bytes of the file; None for anything else."""
    with open(path, "rb") as f:
        head = f.read(12)
    if head.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    return None


def package_files(package):
    """The regular files (or symlinks to them) that a Debian package installed."""
    listing = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True, check=True)
    return sorted(Path(line) for line in listing.stdout.splitlines() if Path(line).is_file())


def collect_sources(packages):
    """The raster images of the packages, deduplicated by content (the first path wins).

    Returns (sources, report lines); the report accounts for every file left out."""
    sources, by_digest, report = [], {}, []
    for package in packages:
        skipped, raster, duplicates = Counter(), 0, 0
        for path in package_files(package):
            fmt = sniff_format(path)
            if fmt is None:
                skipped[path.suffix.lower() or "(no suffix)"] += 1
                continue
            raster += 1
            with open(path, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
            if digest in by_digest:
                duplicates += 1
                continue
            by_digest[digest] = source = Source(path, package, fmt, path.stat().st_size)
            sources.append(source)
        kept = raster - duplicates
        other = ", ".join(f"{ext} {n}" for ext, n in sorted(skipped.items())) or "none"
        report.append(f"  {package}: {raster} raster files, {duplicates} duplicate(s) dropped, "
                      f"{kept} kept; non-raster files skipped: {other}")
    return sources, report


def link_name(index, source):
    """A unique, shell- and CSV-safe file name for a source, e.g. 007-wallpapers_Altai_5120x2880.png.

    Unique names matter: several Plasma wallpapers are all called 1920x1080.jpg, and every
    contender names its output after the source's file name."""
    rel = str(source.path.with_suffix(""))
    for prefix in ("/usr/share/", "/"):
        rel = rel.removeprefix(prefix)
    rel = rel.replace("/contents/images/", "/")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", rel).strip("_")
    return f"{index:03d}-{slug}.{source.fmt}"


def make_corpus_folder(sources, folder):
    """(Re)creates `folder` holding one symlink per source; the contenders read the links."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for index, source in enumerate(sources, 1):
        source.link = folder / link_name(index, source)
        source.link.symlink_to(source.path)


def image_dimensions(paths):
    """{path: (width, height)} read with `vipsheader` (header only, all files in one call)."""
    out = subprocess.run(["vipsheader", *map(str, paths)], capture_output=True, text=True,
                         check=True).stdout
    dims = {}
    for line in out.splitlines():
        match = re.match(r"(.*): (\d+)x(\d+) ", line)
        if match:
            dims[match[1]] = (int(match[2]), int(match[3]))
    return dims


def describe_corpus(sources, report):
    print(f"corpus: {len(sources)} files, {sum(s.size for s in sources):,} bytes "
          f"({sum(s.size for s in sources) / 2**20:.1f} MiB)")
    for line in report:
        print(line)
    formats = Counter(s.fmt for s in sources)
    print("  formats: " + ", ".join(f"{fmt} {n}" for fmt, n in formats.most_common()))
    dims = image_dimensions([s.link for s in sources])
    if len(dims) != len(sources):
        print(f"  warning: vipsheader read only {len(dims)} of {len(sources)} headers")
    if dims:
        def pixels(item):
            return item[1][0] * item[1][1]
        (big, (bw, bh)), (small, (sw, sh)) = max(dims.items(), key=pixels), min(dims.items(), key=pixels)
        total = sum(w * h for w, h in dims.values())
        print(f"  largest {bw}x{bh} ({Path(big).name}), smallest {sw}x{sh} ({Path(small).name}), "
              f"{total / 1e6:.0f} megapixels in all")
        too_small = sum(1 for w, h in dims.values() if w <= SIZE and h <= SIZE)
        if too_small:
            print(f"  note: {too_small} file(s) already fit {SIZE}x{SIZE}; they are not enlarged")


def split_in_two(sources):
    """Two halves of about equal bytes (largest first, each to the lighter half)."""
    halves, weights = ([], []), [0, 0]
    for source in sorted(sources, key=lambda s: s.size, reverse=True):
        lighter = 0 if weights[0] <= weights[1] else 1
        halves[lighter].append(source)
        weights[lighter] += source.size
    return halves


def write_list(path, sources):
    path.write_text("".join(f"{s.link}\n" for s in sources))
    return path


def write_manifest(path, sources):
    """thumbgen's CSV manifest: a `src` header, then one absolute path per line."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["src"])
        writer.writerows([str(s.link)] for s in sources)
    return path


def warm_page_cache(sources):
    """Reads every file once, so that no contender pays for the first read from disk."""
    for source in sources:
        with open(source.link, "rb") as f:
            while f.read(1 << 20):
                pass


# ---------------------------------------------------------------------------------------------
# Contenders: each is a list of commands, started together; the run ends when all have ended.


def contender_commands(name, outdir, files, thumbgen):
    """The command lines of one contender's run. `files` holds the list files and manifest."""
    me = [sys.executable, str(Path(__file__).resolve()), "worker"]
    if name == "thumbgen":
        return [[thumbgen, str(files["manifest"]), "--out", str(outdir),
                 "--size", f"{SIZE}x{SIZE}", "--fit", "inside",
                 "--format", "jpeg", "--quality", str(QUALITY)]]
    if name == "pyvips":
        return [me + ["pyvips", str(files["all"]), str(outdir)]]
    if name == "vipsthumbnail":
        # "256x256>" = fit inside 256x256, shrinking only (never enlarging).
        return [["vipsthumbnail", "--size", f"{SIZE}x{SIZE}>",
                 "-o", f"{outdir}/%s.jpg[Q={QUALITY},strip]",
                 *files["half_paths"][i]] for i in (0, 1)]
    if name == "pillow":
        return [me + ["pillow", str(files["halves"][i]), str(outdir)] for i in (0, 1)]
    raise ValueError(name)


def worker_pyvips(paths, outdir):
    import concurrent.futures
    import pyvips

    def one(path):
        image = pyvips.Image.thumbnail(path, SIZE, height=SIZE, size="down")
        image.write_to_file(f"{outdir}/{Path(path).stem}.jpg[Q={QUALITY},strip]")

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {pool.submit(one, path): path for path in paths}
        return report_failures((futures[f], f.exception()) for f in futures)


def worker_pillow(paths, outdir):
    from PIL import Image
    lanczos = getattr(Image, "Resampling", Image).LANCZOS

    def one(path):
        with Image.open(path) as image:
            image.draft("RGB", (SIZE, SIZE))   # lets the JPEG decoder shrink; no-op otherwise
            image.thumbnail((SIZE, SIZE), lanczos)
            image.convert("RGB").save(f"{outdir}/{Path(path).stem}.jpg", "JPEG", quality=QUALITY)

    def attempt(path):
        try:
            one(path)
        except Exception as error:  # noqa: BLE001 - reported, then the exit status says so
            return error
        return None

    return report_failures((path, attempt(path)) for path in paths)


def report_failures(results):
    failures = 0
    for path, error in results:
        if error is not None:
            failures += 1
            print(f"{path}: {error}", file=sys.stderr)
    return 1 if failures else 0


# ---------------------------------------------------------------------------------------------
# Timing


@dataclass
class Run:
    contender: str
    round: int
    wall: float = 0.0
    cpu: float = 0.0
    rss_max_kib: int = 0   # KiB
    rss_sum_kib: int = 0
    processes: int = 0
    exit_codes: list = field(default_factory=list)
    outputs: int = 0
    strays: list = field(default_factory=list)

    @property
    def failed(self):
        return any(code != 0 for code in self.exit_codes)


TIME_FORMAT = "%e %U %S %M"  # GNU time: wall s, user s, system s, peak RSS KiB


def timed_run(run, commands, logdir):
    """Starts all `commands` at once, each under /usr/bin/time, and fills in run's figures.

    GNU time (not wait4 here) because a child forked from this Python process would inherit
    its resident size as the floor of ru_maxrss; forked from the small `time`, it does not."""
    procs, timings = [], []
    start = time.perf_counter()
    for i, command in enumerate(commands):
        stem = logdir / f"{run.contender}-r{run.round}-p{i}"
        timings.append(Path(f"{stem}.time"))
        with open(f"{stem}.out", "wb") as out, open(f"{stem}.err", "wb") as err:
            procs.append(subprocess.Popen(
                ["/usr/bin/time", "-f", TIME_FORMAT, "-o", str(timings[-1]), *command],
                stdout=out, stderr=err, stdin=subprocess.DEVNULL))
    run.exit_codes = [proc.wait() for proc in procs]
    run.wall = time.perf_counter() - start
    run.processes = len(procs)
    for timing in timings:
        # The figures are the last line; a "Command exited with non-zero status" may precede.
        _, user, system, rss_kib = timing.read_text().split()[-4:]
        run.cpu += float(user) + float(system)
        run.rss_max_kib = max(run.rss_max_kib, int(rss_kib))
        run.rss_sum_kib += int(rss_kib)


def jpeg_dimensions(path):
    """(width, height) from a JPEG's SOF segment; None if the file is not a JPEG."""
    with open(path, "rb") as f:
        if f.read(2) != b"\xff\xd8":
            return None
        while True:
            byte = f.read(1)
            if byte != b"\xff":
                return None
            marker = f.read(1)
            while marker == b"\xff":
                marker = f.read(1)
            if not marker:
                return None
            m = marker[0]
            if m == 0x01 or 0xD0 <= m <= 0xD8:
                continue  # markers without a length
            length = int.from_bytes(f.read(2), "big")
            if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):
                segment = f.read(5)
                return int.from_bytes(segment[3:5], "big"), int.from_bytes(segment[1:3], "big")
            f.seek(length - 2, os.SEEK_CUR)


def count_outputs(run, outdir):
    """Counts JPEGs that fit SIZExSIZE; anything else in the folder goes to run.strays."""
    for path in sorted(p for p in outdir.rglob("*") if p.is_file()):
        dims = jpeg_dimensions(path)
        if dims and max(dims) <= SIZE and min(dims) > 0:
            run.outputs += 1
        else:
            run.strays.append(f"{path.name} ({'%dx%d' % dims if dims else 'not a JPEG'})")


def log_tail(logdir, run, lines=8):
    text = []
    for err in sorted(logdir.glob(f"{run.contender}-r{run.round}-p*.err")):
        tail = err.read_text(errors="replace").splitlines()[-lines:]
        text += [f"    {err.name}: {line}" for line in tail]
    return "\n".join(text)


# ---------------------------------------------------------------------------------------------
# Report


def print_load(when):
    """The load average, with a warning when other work competes for the CPUs."""
    load = os.getloadavg()[0]
    busy = load > 0.5 * (os.cpu_count() or 1)
    print(f"load average {when} the rounds: {load:.2f}"
          + ("  (busy machine: wall times will be noisy; cpu_s is steadier)" if busy else ""))


def median(runs, attribute):
    return statistics.median(getattr(r, attribute) for r in runs)


def print_table(runs_by_contender, expected):
    base = runs_by_contender.get("pyvips")
    base_wall = median(base, "wall") if base else None
    base_rss = median(base, "rss_max_kib") if base else None
    header = (f"{'contender':<14} {'procs':>5} {'wall_s':>7} {'cpu_s':>7} {'peak_rss_MB':>11} "
              f"{'sum_rss_MB':>10} {'outputs':>7} {'wall/pyvips':>11} {'rss/pyvips':>10} "
              f"{'wall_range':>12}")
    print(header)
    print("-" * len(header))
    for name, runs in runs_by_contender.items():
        wall, rss = median(runs, "wall"), median(runs, "rss_max_kib")
        ratio_wall = f"{wall / base_wall:.2f}" if base_wall else "-"
        ratio_rss = f"{rss / base_rss:.2f}" if base_rss else "-"
        outputs = min(r.outputs for r in runs)
        mark = "" if outputs == expected and not any(r.failed for r in runs) else " !"
        print(f"{name:<14} {runs[0].processes:>5} {wall:>7.2f} {median(runs, 'cpu'):>7.2f} "
              f"{rss / 1024:>11.1f} {median(runs, 'rss_sum_kib') / 1024:>10.1f} "
              f"{outputs:>7} {ratio_wall:>11} {ratio_rss:>10} "
              f"{min(r.wall for r in runs):>5.2f}-{max(r.wall for r in runs):<6.2f}{mark}")
    print(f"(medians of {len(next(iter(runs_by_contender.values())))} rounds; peak_rss_MB = the "
          f"largest single process, sum_rss_MB = sum of the processes' peaks; MB = MiB; outputs = "
          f"fewest valid JPEGs in any round, expected {expected}; wall_range = fastest-slowest "
          f"round; '!' = a failure or a short count)")


def run_benchmark(args):
    bench_dir = Path(args.bench_dir)
    contenders = [c for c in args.only.split(",") if c]
    unknown = sorted(set(contenders) - set(CONTENDERS))
    if unknown:
        sys.exit(f"bench: error: unknown contender(s) {', '.join(unknown)}; known: {', '.join(CONTENDERS)}")
    if "thumbgen" in contenders and not args.thumbgen:
        sys.exit("bench: error: thumbgen selected but no --thumbgen binary given")

    sources, report = collect_sources(args.packages)
    if not sources:
        sys.exit("bench: error: the corpus is empty; are the wallpaper packages installed?")
    make_corpus_folder(sources, bench_dir / "corpus")
    describe_corpus(sources, report)
    halves = split_in_two(sources)
    files = {
        "manifest": write_manifest(bench_dir / "manifest.csv", sources),
        "all": write_list(bench_dir / "corpus.txt", sources),
        "halves": [write_list(bench_dir / f"corpus-half{i + 1}.txt", h) for i, h in enumerate(halves)],
        "half_paths": [[str(s.link) for s in h] for h in halves],
    }
    print(f"  halves for the 2-process contenders: {len(halves[0])} + {len(halves[1])} files")
    print(f"work folder: {bench_dir} (manifest.csv, corpus/, out/, logs/)")
    if args.thumbgen:
        print(f"thumbgen: {args.thumbgen}")
    warm_page_cache(sources)
    print_load("before")

    logdir = bench_dir / "logs"
    logdir.mkdir(exist_ok=True)
    runs_by_contender = {name: [] for name in CONTENDERS if name in contenders}
    problems = 0
    for round_no in range(1, args.rounds + 1):
        shift = (round_no - 1) % len(contenders)
        for name in contenders[shift:] + contenders[:shift]:
            outdir = bench_dir / "out" / name
            shutil.rmtree(outdir, ignore_errors=True)
            outdir.mkdir(parents=True)
            run = Run(name, round_no)
            timed_run(run, contender_commands(name, outdir, files, args.thumbgen), logdir)
            count_outputs(run, outdir)
            runs_by_contender[name].append(run)
            print(f"round {round_no}/{args.rounds} {name:<14} wall {run.wall:6.2f} s  "
                  f"cpu {run.cpu:6.2f} s  peak rss {run.rss_max_kib / 1024:6.1f} MiB  "
                  f"outputs {run.outputs}/{len(sources)}  exit {','.join(map(str, run.exit_codes))}",
                  flush=True)
            if run.failed or run.outputs != len(sources) or run.strays:
                problems += 1
                if run.strays:
                    print(f"    unexpected files: {', '.join(run.strays[:5])}"
                          + (" ..." if len(run.strays) > 5 else ""))
                print(log_tail(logdir, run) or "    (no stderr)")
    print_load("after")
    print()
    print(f"input: {len(sources)} files, {sum(s.size for s in sources):,} bytes; "
          f"{SIZE}x{SIZE} inside, JPEG q{QUALITY}; {os.cpu_count()} CPUs")
    print_table(runs_by_contender, len(sources))
    if problems:
        print(f"bench: {problems} run(s) failed or wrote the wrong number of outputs; logs in {logdir}",
              file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run")
    run.add_argument("--bench-dir", required=True)
    run.add_argument("--rounds", type=int, default=5)
    run.add_argument("--only", default=",".join(CONTENDERS))
    run.add_argument("--thumbgen", default="")
    run.add_argument("--packages", nargs="+", required=True)
    worker = commands.add_parser("worker")
    worker.add_argument("library", choices=["pyvips", "pillow"])
    worker.add_argument("listfile")
    worker.add_argument("outdir")
    args = parser.parse_args()

    if args.command == "run":
        return run_benchmark(args)
    paths = Path(args.listfile).read_text().splitlines()
    work = worker_pyvips if args.library == "pyvips" else worker_pillow
    return work(paths, args.outdir)


if __name__ == "__main__":
    sys.exit(main())
