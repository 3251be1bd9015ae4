#!/usr/bin/env python3
"""The timing half of scripts/bench (run that; it does the set-up first).

    bench.py run --bench-dir DIR --rounds N --only LIST --thumbgen BIN --packages PKG...
                 [--baseline BIN] [--workload wallpapers|small|sizes10|static|orders|all]
                 [--small-count N] [--static-avif]
                 [--base-url URL --access-log FILE --connections N --rate R]
        builds the corpus from the packages' files (and, for the small workloads, crops of it),
        runs the contenders round-robin on each workload in turn, prints a table of medians per
        workload; exits 1 if any run failed, any output count is short, or (network case) any
        file was fetched other than exactly once per run. The network contenders fetch from
        --base-url (the nginx that scripts/bench starts, serving the corpus folder, logging to
        --access-log); they run on the wallpapers workload only. The static-site workload
        (static, not part of all) is bench_static.py's, and the manifest-order workload
        (orders, not part of all) bench_orders.py's, each with contenders of its own. With
        --baseline, each thumbgen run that has a twin gets it (BASELINE_TWINS: thumbgen-base
        beside thumbgen, thumbgen-base-grouped beside thumbgen-grouped, ...) in every workload,
        and each table is followed by their per-round wall and CPU ratios.
    bench.py worker {pyvips,pillow} LISTFILE OUTDIR
        one contender's worker process (started by `run`), thumbnailing the files in LISTFILE.
    bench.py make-small LISTFILE OUTDIR COUNT
        writes the small workload (started by `run`, so that pyvips stays out of the timing
        process): COUNT JPEGs of 800x500 (q85), crops of the wallpapers listed in LISTFILE.

Standard library only, except that each worker imports its own imaging library.
"""

import argparse
import csv
import hashlib
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import bench_orders
import bench_site
import bench_static

SIZE = 256
QUALITY = 80
LOCAL_CONTENDERS = ("thumbgen", "thumbgen-inproc", "thumbgen-1size", "thumbgen-base", "thumbgen-base-1size",
                    "thumbgen-exact", "thumbgen-2shards", "pyvips", "vipsthumbnail", "pillow")
# thumbgen-exact: thumbgen with --shrink-on-load exact, so that its JPEG decodes keep the
# headroom vipsthumbnail and Pillow's thumbnail() keep (the default, balanced, halves a source
# 2-4 times the output with no headroom): the comparison at equal decoding work.
# thumbgen-2shards: the manifest as two shard processes at once (--shard 0/2 and 1/2, --jobs 1
# each: a core each), into one --out and one cache, against thumbgen's one process of --jobs 2.
# thumbgen-base and thumbgen-base-1size: the same runs as thumbgen and thumbgen-1size with
# another build (--baseline BIN), so that a before/after table comes from one alternated run.
NETWORK_CONTENDERS = ("thumbgen-net", "curl-parallel")
STATIC_CONTENDERS = bench_static.CONTENDERS   # the static-site workload's (bench_static.py)
ORDER_CONTENDERS = bench_orders.CONTENDERS    # the manifest-order workload's (bench_orders.py)
SITE_CONTENDERS = bench_site.CONTENDERS        # the built-site workload's (bench_site.py)
CONTENDERS = tuple(dict.fromkeys(LOCAL_CONTENDERS + NETWORK_CONTENDERS + STATIC_CONTENDERS
                                 + ORDER_CONTENDERS + SITE_CONTENDERS))
# The contenders a baseline build adds (--baseline): each thumbgen run that has a twin with the
# baseline binary gets it, in every workload, so that every table says what a change cost.
BASELINE_TWINS = {"thumbgen": "thumbgen-base", "thumbgen-1size": "thumbgen-base-1size",
                  **bench_orders.BASELINE_TWINS}
# Issue 45's targets for the plain workloads (small, wallpapers), as per-round ratios of
# thumbgen's figure to the other contender's: (figure, other, at most).
# (The wall ratio to thumbgen-base is on the baseline line, printed for every workload.)
PEER_TARGETS = (("wall", "pillow", 1.0), ("wall", "vipsthumbnail", 0.8), ("cpu", "thumbgen-base", 1.0))
NETWORK_TARGET = 1.15   # the issue: thumbgen-net <= 1.15 x max(thumbgen local, curl-parallel)
ISOLATION_TARGET = 1.03  # the issue: thumbgen (workers) <= 1.03 x thumbgen --isolation none
WORKLOADS = ("wallpapers", "small", "sizes10")   # what --workload all runs, in turn
# The srcset case (issue 14): each small JPEG at ten widths, 32 to 176 px, against the same
# sources at one width (176) and a naive pyvips script that calls thumbnail ten times a source.
SIZES10 = tuple(range(32, 177, 16))
SIZES10_CONTENDERS = ("thumbgen", "thumbgen-inproc", "thumbgen-1size", "thumbgen-base", "thumbgen-base-1size",
                      "thumbgen-2shards", "pyvips")
SIZES10_TARGET = 2.5
SMALL_WIDTH, SMALL_HEIGHT, SMALL_QUALITY = 800, 500, 85
SMALL_COUNT = 2006
SAMPLE_INTERVAL = 0.02  # s between two samples of a run's process tree


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


def write_manifest(path, srcs):
    """thumbgen's CSV manifest: a `src` header, then one source (absolute path or URL) per line."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["src"])
        writer.writerows([str(src)] for src in srcs)
    return path


def write_sized_manifest(path, srcs, sizes):
    """A manifest with one row per source and size: `src,size,out` (out `{name}-{w}.jpg`)."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["src", "size", "out"])
        for src in srcs:
            writer.writerows([str(src), f"{size}x{size}", "{name}-" + str(size) + ".jpg"] for size in sizes)
    return path


def expected_outputs(name, workload, sources):
    """How many JPEGs a contender's run must write: ten a source in the 10-size workloads."""
    ten = workload in ("sizes10", "orders") and not name.endswith("1size")
    return sources * (len(SIZES10) if ten else 1)


def source_url(base_url, source):
    """The source's URL on the benchmark's nginx (link names are URL-safe by construction)."""
    return base_url + source.link.name


def write_curl_config(path, sources, base_url, outdir):
    """A curl --config file: one url/output pair per source, outputs named as on the server."""
    with open(path, "w") as f:
        for source in sources:
            f.write(f'url = "{source_url(base_url, source)}"\noutput = "{outdir / source.link.name}"\n')
    return path


def warm_page_cache(sources):
    """Reads every file once, so that no contender pays for the first read from disk."""
    for source in sources:
        with open(source.link, "rb") as f:
            while f.read(1 << 20):
                pass


# ---------------------------------------------------------------------------------------------
# The small workload: many small JPEGs, where a per-image cost (a worker round trip, a process's
# start-up) weighs more than on the wallpapers.


def small_plan(dims, count):
    """[(output name, source path, x, y)] for `count` crops of SMALL_WIDTHxSMALL_HEIGHT.

    Deterministic: the wallpapers large enough take turns in corpus order, and each crop's
    corner comes from a generator seeded with the crop's number."""
    import random
    eligible = [(path, w, h) for path, (w, h) in dims
                if w >= SMALL_WIDTH and h >= SMALL_HEIGHT]
    plan = []
    for i in range(count):
        path, w, h = eligible[i % len(eligible)]
        rng = random.Random(i)
        x, y = rng.randrange(w - SMALL_WIDTH + 1), rng.randrange(h - SMALL_HEIGHT + 1)
        plan.append((f"s{i + 1:04d}-{Path(path).name.split('-', 1)[0]}.jpg", path, x, y))
    return plan


def make_small_images(listfile, outdir, count):
    """The `make-small` command: writes the crops of small_plan into outdir (q85, stripped),
    each wallpaper decoded once; skips the work when outdir's stamp says it is done."""
    import json
    import pyvips
    paths = Path(listfile).read_text().splitlines()
    dims = image_dimensions(paths)
    plan = small_plan([(path, dims[path]) for path in paths if path in dims], count)
    outdir = Path(outdir)
    stamp = json.dumps({"plan": plan, "quality": SMALL_QUALITY, "vips": pyvips.version(0) * 100
                        + pyvips.version(1), "metadata": "icc kept"}, sort_keys=True)
    stamp_file = outdir / "STAMP.json"
    if (stamp_file.is_file() and stamp_file.read_text() == stamp
            and all((outdir / name).is_file() for name, *_ in plan)):
        return 0
    shutil.rmtree(outdir, ignore_errors=True)
    outdir.mkdir(parents=True)
    by_source = {}
    for name, path, x, y in plan:
        by_source.setdefault(path, []).append((name, x, y))
    for path, crops in by_source.items():
        image = pyvips.Image.new_from_file(path).colourspace("srgb")
        if image.hasalpha():
            image = image.flatten(background=[255, 255, 255])
        if image.format != "uchar":
            image = image.cast("uchar")
        image = image.copy_memory()   # decoded once; every crop reads from memory
        # The wallpaper's ICC profile stays with its crops (as it does in photos on the web; all
        # of this corpus's are variants of sRGB), so that colour management is exercised;
        # EXIF, XMP and IPTC go (an orientation tag would turn the crops).
        for field in image.get_fields():
            if field.startswith(("exif-", "xmp-", "iptc-", "orientation", "jpeg-thumbnail")):
                image.remove(field)
        for name, x, y in crops:
            image.crop(x, y, SMALL_WIDTH, SMALL_HEIGHT).write_to_file(
                f"{outdir / name}[Q={SMALL_QUALITY}]")
    stamp_file.write_text(stamp)
    return 0


def small_sources(bench_dir, sources, count):
    """The small workload's sources: made (or found made) by a `make-small` child process."""
    outdir = bench_dir / "small"
    listfile = write_list(bench_dir / "corpus.txt", sources)
    started = time.perf_counter()
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "make-small", str(listfile),
                    str(outdir), str(count)], check=True)
    made = []
    for path in sorted(outdir.glob("s*.jpg")):
        made.append(Source(path, "small", "jpg", path.stat().st_size, link=path))
    if len(made) != count:
        sys.exit(f"bench: error: {outdir} holds {len(made)} small images, not {count}")
    print(f"small workload: {count} JPEGs of {SMALL_WIDTH}x{SMALL_HEIGHT} q{SMALL_QUALITY}, crops of "
          f"the wallpapers at least that large, {sum(s.size for s in made) / 2**20:.1f} MiB in {outdir} "
          f"(ready in {time.perf_counter() - started:.1f} s)")
    return made


# ---------------------------------------------------------------------------------------------
# Contenders: each is a list of commands, started together; the run ends when all have ended.


def thumbgen_options(outdir):
    """thumbgen's flags in every local workload: --out `outdir` and its own cache beside it.

    A fresh, empty cache for every cold run (outdir is new each run): the cold case with
    thumbgen's defaults, storing into the cache included. The warm cases (bench_cache.py's,
    bench_orders.py's) run again with the same folders."""
    return ["--out", str(outdir), "--size", f"{SIZE}x{SIZE}", "--fit", "inside",
            "--format", "jpeg", "--quality", str(QUALITY), "--cache-dir", str(outdir) + ".cache"]


def contender_commands(name, outdir, files, thumbgen, connections=16, baseline=""):
    """The command lines of one contender's run. `files` holds the list files and manifests."""
    if name.startswith("thumbgen-base"):
        name, thumbgen = name.replace("-base", ""), baseline
    me = [sys.executable, str(Path(__file__).resolve()), "worker"]
    thumbgen_flags = thumbgen_options(outdir)
    if name == "thumbgen":
        return [[thumbgen, str(files["manifest"]), *thumbgen_flags]]
    if name == "thumbgen-1size":
        # The 10-size workload's sources at its largest size only: what ten sizes cost over one.
        return [[thumbgen, str(files["manifest1"]), *thumbgen_flags]]
    if name == "thumbgen-2shards":
        # Two shards of the same manifest at once, a core each, as two machines would run them.
        return [[thumbgen, str(files["manifest"]), *thumbgen_flags, "--shard", f"{i}/2", "--jobs", "1"]
                for i in (0, 1)]
    if name == "thumbgen-exact":
        return [[thumbgen, str(files["manifest"]), *thumbgen_flags, "--shrink-on-load", "exact"]]
    if name == "thumbgen-inproc":
        # The same run with decode/render/encode in the parent, as before worker isolation.
        return [[thumbgen, str(files["manifest"]), *thumbgen_flags, "--isolation", "none"]]
    if name == "thumbgen-net":
        # --host-connections as well as --downloads: every URL is on one host, and thumbgen's
        # default of 6 connections per host would otherwise cap it at 6 to curl's N.
        return [[thumbgen, str(files["net_manifest"]), *thumbgen_flags, "--allow-private-network",
                 "--downloads", str(connections), "--host-connections", str(connections)]]
    if name == "curl-parallel":
        # Writes every body to a file in outdir (as thumbgen writes its downloads to temporary
        # files); --fail makes an HTTP error fail the run.
        return [["curl", "--parallel", "--parallel-max", str(connections), "--no-progress-meter",
                 "--fail", "--config", str(files["curl_config"])]]
    if name == "pyvips":
        library = "pyvips10" if "manifest1" in files else "pyvips"
        return [me + [library, str(files["all"]), str(outdir)]]
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


def worker_pyvips10(paths, outdir):
    """The naive srcset script: thumbnail called once per size, each from the file."""
    import concurrent.futures
    import pyvips

    def one(path):
        for size in SIZES10:
            image = pyvips.Image.thumbnail(path, size, height=size, size="down")
            image.write_to_file(f"{outdir}/{Path(path).stem}-{size}.jpg[Q={QUALITY},strip]")

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        futures = {pool.submit(one, path): path for path in paths}
        return report_failures((futures[f], f.exception()) for f in futures)


def worker_pillow(paths, outdir):
    import io
    from PIL import Image, ImageCms
    lanczos = getattr(Image, "Resampling", Image).LANCZOS
    srgb = ImageCms.createProfile("sRGB")
    transforms = {}   # by the embedded profile's bytes: built once per distinct profile

    def to_srgb(image):
        """Colour management on, as thumbgen has it: pixels through the embedded profile."""
        icc = image.info.get("icc_profile")
        if not icc or image.mode not in ("RGB", "L", "CMYK"):
            return image.convert("RGB")
        key = (icc, image.mode)
        if key not in transforms:
            transforms[key] = ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(icc)), srgb,
                                                      image.mode, "RGB")
        return ImageCms.applyTransform(image, transforms[key])

    def one(path):
        with Image.open(path) as image:
            image.draft("RGB", (SIZE, SIZE))   # lets the JPEG decoder shrink; no-op otherwise
            image.thumbnail((SIZE, SIZE), lanczos)
            to_srgb(image).save(f"{outdir}/{Path(path).stem}.jpg", "JPEG", quality=QUALITY)

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
    workload: str = "wallpapers"
    wall: float = 0.0
    cpu: float = 0.0
    rss_max_kib: int = 0   # KiB
    rss_sum_kib: int = 0
    processes: int = 0
    # From the process-tree sampler (TreeSampler), all in KiB:
    parent_kib: int = 0       # the contender's own process (the largest, if it started several)
    kids_kib: int = 0         # peak of the sum over its descendants (thumbgen's workers)
    tree_kib: int = 0         # peak of the sum over the whole tree
    tree_anon_kib: int = 0    # the same for anonymous memory only (no shared library pages)
    tree_processes: int = 0   # processes seen in the tree over the run
    samples: int = 0
    exit_codes: list = field(default_factory=list)
    outputs: int = 0
    strays: list = field(default_factory=list)
    started_at: float = 0.0   # epoch seconds (to place nginx's log lines in the run)
    ended_at: float = 0.0
    log: "AccessLog" = None   # network runs: what nginx logged during the run
    same_as_local: tuple = None  # thumbgen-net: (outputs byte-identical to thumbgen's, outputs)
    flagged: bool = False     # failed, short, or (network) not exactly one GET per file

    @property
    def failed(self):
        return any(code != 0 for code in self.exit_codes)


TIME_FORMAT = "%e %U %S %M"  # GNU time: wall s, user s, system s, peak RSS KiB


class TreeSampler:
    """Samples the resident memory of a run's process trees every SAMPLE_INTERVAL, on a thread.

    The roots are the `/usr/bin/time` processes, left out of every figure; their children are
    the contender's processes ("tops"), and everything below those (thumbgen's workers) are
    "kids". The tree is found from each process's parent pid in /proc/PID/stat (this kernel
    has no /proc/PID/task/*/children): /proc is listed each tick, and only pids not seen before
    are read. Each member's /proc/PID/status gives VmRSS and RssAnon (summed per sample) and
    VmHWM (the kernel's own peak for that process, so a top's peak misses nothing between
    samples, up to the last sample before it exits). Sums of VmRSS count a shared library page
    once per process mapping it, hence the anon column too."""

    def __init__(self, roots):
        import threading
        self.roots = set(roots)
        self.ppid = {}          # pid -> parent pid, for every pid seen in /proc
        self.tops, self.kids = set(), set()
        self.seen = set()
        self.top_hwm = {}       # top pid -> its largest VmHWM seen (KiB)
        self.kids_peak = self.tree_peak = self.anon_peak = 0
        self.samples = 0
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, name="tree-sampler", daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.done.set()
        self.thread.join()

    def loop(self):
        while True:
            self.sample()
            if self.done.wait(SAMPLE_INTERVAL):
                return

    @staticmethod
    def read_ppid(pid):
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            return None
        # The command name, in parentheses, may itself hold spaces and parentheses.
        return int(stat[stat.rindex(b")") + 2:].split(None, 2)[1])

    @staticmethod
    def read_status(pid):
        """(VmRSS, RssAnon, VmHWM) in KiB; zeros for a process gone or a zombie."""
        values = {b"VmRSS:": 0, b"RssAnon:": 0, b"VmHWM:": 0}
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                for line in f:
                    key = line.split(None, 1)[0]
                    if key in values:
                        values[key] = int(line.split()[1])
        except OSError:
            pass
        return values[b"VmRSS:"], values[b"RssAnon:"], values[b"VmHWM:"]

    def sample(self):
        pids = {int(name) for name in os.listdir("/proc") if name.isdigit()}
        for gone in self.ppid.keys() - pids:
            del self.ppid[gone]
            self.tops.discard(gone)
            self.kids.discard(gone)
        new = {}
        for pid in pids - self.ppid.keys():
            ppid = self.read_ppid(pid)
            if ppid is not None:
                self.ppid[pid] = new[pid] = ppid
        # Only a new pid can be a new member (a parent pid changes only when the parent dies).
        # Children of a root are tops, children of members are kids; repeated so that a child
        # and its own child first seen in the same tick are both found.
        changed = True
        while changed:
            changed = False
            for pid, ppid in new.items():
                if pid in self.tops or pid in self.kids or pid in self.roots:
                    continue
                if ppid in self.roots:
                    self.tops.add(pid)
                elif ppid in self.tops or ppid in self.kids:
                    self.kids.add(pid)
                else:
                    continue
                self.seen.add(pid)
                changed = True
        tree = anon = kids = 0
        for pid in self.tops | self.kids:
            rss, rss_anon, hwm = self.read_status(pid)
            tree += rss
            anon += rss_anon
            if pid in self.kids:
                kids += rss
            else:
                self.top_hwm[pid] = max(self.top_hwm.get(pid, 0), hwm)
        self.tree_peak = max(self.tree_peak, tree)
        self.anon_peak = max(self.anon_peak, anon)
        self.kids_peak = max(self.kids_peak, kids)
        self.samples += 1

    def fill(self, run):
        run.parent_kib = max(self.top_hwm.values(), default=0)
        run.kids_kib = self.kids_peak
        run.tree_kib = self.tree_peak
        run.tree_anon_kib = self.anon_peak
        run.tree_processes = len(self.seen)
        run.samples = self.samples


def timed_run(run, commands, logdir):
    """Starts all `commands` at once, each under /usr/bin/time, and fills in run's figures.

    GNU time (not wait4 here) because a child forked from this Python process would inherit
    its resident size as the floor of ru_maxrss; forked from the small `time`, it does not."""
    procs, timings, sampler = [], [], None
    run.started_at = time.time()
    start = time.perf_counter()
    try:
        for i, command in enumerate(commands):
            stem = logdir / f"{run.workload}-{run.contender}-r{run.round}-p{i}"
            timings.append(Path(f"{stem}.time"))
            with open(f"{stem}.out", "wb") as out, open(f"{stem}.err", "wb") as err:
                # A session of its own, so that an interruption can stop `time` and its child.
                procs.append(subprocess.Popen(
                    ["/usr/bin/time", "-f", TIME_FORMAT, "-o", str(timings[-1]), *command],
                    stdout=out, stderr=err, stdin=subprocess.DEVNULL, start_new_session=True))
        sampler = TreeSampler(proc.pid for proc in procs)
        sampler.start()
        run.exit_codes = [proc.wait() for proc in procs]
    except BaseException:
        if sampler:
            sampler.stop()
        for proc in procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for proc in procs:
            proc.wait()
        raise
    run.wall = time.perf_counter() - start
    run.ended_at = time.time()
    sampler.stop()
    sampler.fill(run)
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


def count_fetched(run, outdir, sources):
    """curl-parallel's outputs: the files fetched whole (the size of their source)."""
    for source in sources:
        path = outdir / source.link.name
        size = path.stat().st_size if path.exists() else None
        if size == source.size:
            run.outputs += 1
        else:
            run.strays.append(f"{path.name} ({'missing' if size is None else f'{size} of {source.size} bytes'})")


# ---------------------------------------------------------------------------------------------
# nginx's access log (the log_format `bench` of scripts/bench's nginx.conf)

LOG_LINE = re.compile(r'\S+ - \S+ \[[^]]*\] "(?P<method>\S+) (?P<path>\S+)[^"]*" (?P<status>\d+) '
                      r'(?P<bytes>\d+) "[^"]*" "(?P<agent>[^"]*)" conn=(?P<conn>\d+) req=\d+ '
                      r'rt=(?P<rt>[\d.]+) msec=(?P<msec>[\d.]+)$')


@dataclass
class Request:
    method: str
    name: str       # the file name asked for
    status: int
    bytes: int      # body bytes sent
    agent: str
    connection: int
    start: float    # epoch s (end - request time)
    end: float


@dataclass
class AccessLog:
    """What nginx logged for one run."""
    requests: list
    unparsed: int

    def gets(self):
        return [r for r in self.requests if r.method == "GET"]

    def summary(self, sizes, run):
        """A dict of the figures the per-round lines and the checks use."""
        gets = self.gets()
        per_file = Counter(r.name for r in gets)
        full = [r for r in gets if r.status == 200 and r.bytes == sizes.get(r.name)]
        first_start = min((r.start for r in self.requests), default=run.started_at)
        last_end = max((r.end for r in self.requests), default=run.started_at)
        busy = sum(r.end - r.start for r in self.requests)
        span = max(last_end - first_start, 1e-9)
        return {
            "requests": len(self.requests),
            "gets": len(gets),
            "full": len(full),
            "files": len(per_file),
            "max_per_file": max(per_file.values(), default=0),
            "repeated": sorted(name for name, n in per_file.items() if n > 1),
            "missing": sorted(set(sizes) - set(per_file)),
            "statuses": Counter(r.status for r in self.requests),
            "connections": len({r.connection for r in self.requests}),
            "mib": sum(r.bytes for r in self.requests) / 2**20,
            "first_start": first_start - run.started_at,   # s into the run
            "last_end": last_end - run.started_at,
            "tail": run.ended_at - last_end,                # s of the run after the last byte
            "mean_in_flight": busy / span,                  # transfers open, on average
            "mib_per_s": sum(r.bytes for r in self.requests) / 2**20 / span,
            "unparsed": self.unparsed,
        }


def log_size(path):
    return path.stat().st_size if path.exists() else 0


def read_access_log(path, offset, settle=0.3):
    """The requests nginx logged after byte `offset`. nginx writes a line when a response has
    been sent, which can be a moment after the client has it; wait until the log stops growing."""
    size, deadline = log_size(path), time.monotonic() + 2
    while time.monotonic() < deadline:
        time.sleep(settle)
        if log_size(path) == size:
            break
        size = log_size(path)
    with open(path, "rb") as f:
        f.seek(offset)
        lines = f.read().decode(errors="replace").splitlines()
    requests, unparsed = [], 0
    for line in lines:
        match = LOG_LINE.match(line)
        if not match:
            unparsed += 1
            continue
        end, rt = float(match["msec"]), float(match["rt"])
        requests.append(Request(match["method"], match["path"].lstrip("/").split("?")[0],
                                int(match["status"]), int(match["bytes"]), match["agent"],
                                int(match["conn"]), end - rt, end))
    return AccessLog(requests, unparsed)


def log_tail(logdir, run, lines=8):
    text = []
    for err in sorted(logdir.glob(f"{run.workload}-{run.contender}-r{run.round}-p*.err")):
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
    width = max(15, *map(len, runs_by_contender))
    header = (f"{'contender':<{width}} {'procs':>5} {'wall_s':>7} {'cpu_s':>7} {'peak_rss_MB':>11} "
              f"{'sum_rss_MB':>10} {'parent_MB':>9} {'kids_MB':>7} {'tree_MB':>7} {'anon_MB':>7} "
              f"{'outputs':>7} {'wall/pyvips':>11} {'rss/pyvips':>10} {'wall_range':>12}")
    print(header)
    print("-" * len(header))
    mib = lambda runs, attribute: median(runs, attribute) / 1024
    for name, runs in runs_by_contender.items():
        wall, rss = median(runs, "wall"), median(runs, "rss_max_kib")
        ratio_wall = f"{wall / base_wall:.2f}" if base_wall else "-"
        ratio_rss = f"{rss / base_rss:.2f}" if base_rss else "-"
        outputs = min(r.outputs for r in runs)
        mark = "" if outputs == expected(name) and not any(r.failed or r.flagged for r in runs) else " !"
        procs = f"{runs[0].processes}+{max(r.tree_processes for r in runs) - runs[0].processes}"
        print(f"{name:<{width}} {procs:>5} {wall:>7.2f} {median(runs, 'cpu'):>7.2f} "
              f"{rss / 1024:>11.1f} {mib(runs, 'rss_sum_kib'):>10.1f} {mib(runs, 'parent_kib'):>9.1f} "
              f"{mib(runs, 'kids_kib'):>7.1f} {mib(runs, 'tree_kib'):>7.1f} "
              f"{mib(runs, 'tree_anon_kib'):>7.1f} "
              f"{outputs:>7} {ratio_wall:>11} {ratio_rss:>10} "
              f"{min(r.wall for r in runs):>5.2f}-{max(r.wall for r in runs):<6.2f}{mark}")
    print(f"(medians of {len(next(iter(runs_by_contender.values())))} rounds; MB = MiB; procs = processes "
          f"started + most descendants seen in a round; peak_rss_MB = the largest single process "
          f"(GNU time; for thumbgen the larger of the parent and any worker), sum_rss_MB = sum of "
          f"the started processes' peaks; sampled every {SAMPLE_INTERVAL * 1000:.0f} ms: parent_MB = "
          f"the started process's own peak (VmHWM), kids_MB = peak of the sum over its descendants "
          f"(thumbgen's workers), tree_MB = peak of the sum over all, anon_MB = the same for "
          f"anonymous memory; outputs = fewest valid JPEGs in any round (curl-parallel: files "
          f"fetched whole), expected {expected(next(iter(runs_by_contender)))}; wall_range = fastest-slowest round; '!' = a failure "
          f"or a short count)")


def per_round_ratios(runs_by_contender, numerator, denominator, attribute):
    """numerator's figure / denominator's, for each round both ran in."""
    den = {r.round: getattr(r, attribute) for r in runs_by_contender.get(denominator, [])}
    return [getattr(r, attribute) / den[r.round]
            for r in runs_by_contender.get(numerator, []) if den.get(r.round)]


def describe_per_round(ratios, digits=3):
    """'median (per round r1 r2 ...)' of per-round ratios, in round order ('-' for none: a
    figure of 0 s leaves its round out)."""
    if not ratios:
        return "-"
    rounds = " ".join(f"{r:.{digits}f}" for r in ratios)
    return f"{statistics.median(ratios):.{digits}f} (per round {rounds})"


def print_baseline_summary(workload, runs_by_contender):
    """Each thumbgen run against its twin with the baseline build (--baseline), per round:
    the cost of what changed since that build, wall and CPU."""
    for mine, base in BASELINE_TWINS.items():
        walls = per_round_ratios(runs_by_contender, mine, base, "wall")
        if not walls:
            continue
        cpus = per_round_ratios(runs_by_contender, mine, base, "cpu")
        print(f"baseline [{workload}]: {mine} / {base}: wall {describe_per_round(walls)}   "
              f"cpu {describe_per_round(cpus)}   (below 1 = this build cheaper)")


def print_peer_summary(workload, runs_by_contender):
    """Issue 45's ratios for a plain workload: thumbgen's wall against Pillow's and
    vipsthumbnail's, its CPU against the baseline build's, per round and median."""
    for figure, other, target in PEER_TARGETS:
        ratios = per_round_ratios(runs_by_contender, "thumbgen", other, figure)
        if not ratios:
            continue
        verdict = "met" if statistics.median(ratios) <= target else "NOT met"
        print(f"peers [{workload}]: {figure:<4} thumbgen / {other:<13} = "
              f"{describe_per_round(ratios)}   target <= {target:.2f}: {verdict}")


def print_sizes_summary(runs_by_contender):
    """The issue's check for srcset: ten sizes a source against one, per round."""
    base = per_round_ratios(runs_by_contender, "thumbgen-base", "thumbgen-base-1size", "wall")
    if base:
        print(f"10 sizes: wall thumbgen-base (10 sizes) / thumbgen-base-1size = {statistics.median(base):.2f} "
              f"({min(base):.2f}-{max(base):.2f})")
    walls = per_round_ratios(runs_by_contender, "thumbgen", "thumbgen-1size", "wall")
    if not walls:
        return
    verdict = "met" if statistics.median(walls) <= SIZES10_TARGET else "NOT met"
    pyvips = per_round_ratios(runs_by_contender, "thumbgen", "pyvips", "wall")
    print(f"10 sizes: wall thumbgen (10 sizes) / thumbgen-1size = {statistics.median(walls):.2f} "
          f"({min(walls):.2f}-{max(walls):.2f})   target <= {SIZES10_TARGET}: {verdict}"
          + (f"   against naive pyvips {statistics.median(pyvips):.2f}" if pyvips else ""))


def print_shards_summary(workload, runs_by_contender):
    """One process against two shard processes on this machine, per round."""
    walls = per_round_ratios(runs_by_contender, "thumbgen-2shards", "thumbgen", "wall")
    if not walls:
        return
    cpus = per_round_ratios(runs_by_contender, "thumbgen-2shards", "thumbgen", "cpu")
    print(f"shards [{workload}]: wall thumbgen-2shards / thumbgen = {statistics.median(walls):.3f} "
          f"({min(walls):.3f}-{max(walls):.3f})   cpu {statistics.median(cpus):.3f} "
          f"({min(cpus):.3f}-{max(cpus):.3f})   (median and range of {len(walls)} per-round ratios)")


def print_isolation_summary(workload, runs_by_contender):
    """The issue's check: thumbgen (workers) against thumbgen --isolation none, per round."""
    describe = lambda ratios: (f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})"
                               if ratios else "-")
    walls = per_round_ratios(runs_by_contender, "thumbgen", "thumbgen-inproc", "wall")
    if not walls:
        print(f"isolation [{workload}]: needs thumbgen and thumbgen-inproc (see --only)")
        return
    cpus = per_round_ratios(runs_by_contender, "thumbgen", "thumbgen-inproc", "cpu")
    iso, inproc = runs_by_contender["thumbgen"], runs_by_contender["thumbgen-inproc"]
    mib = lambda runs, attribute: median(runs, attribute) / 1024
    verdict = "met" if statistics.median(walls) <= ISOLATION_TARGET else "NOT met"
    print(f"isolation [{workload}]: wall thumbgen / thumbgen-inproc = {describe(walls)}   target "
          f"<= {ISOLATION_TARGET:.2f}: {verdict}   cpu {describe(cpus)}   (median and range of "
          f"{len(walls)} per-round ratios)")
    print(f"  memory: thumbgen parent {mib(iso, 'parent_kib'):.1f} MiB + workers together "
          f"{mib(iso, 'kids_kib'):.1f} MiB, tree {mib(iso, 'tree_kib'):.1f} MiB (anon "
          f"{mib(iso, 'tree_anon_kib'):.1f}); thumbgen-inproc {mib(inproc, 'parent_kib'):.1f} MiB "
          f"(anon {mib(inproc, 'tree_anon_kib'):.1f})")
    if "pyvips" in runs_by_contender:
        print(f"  against pyvips (per-round wall ratios): thumbgen "
              f"{describe(per_round_ratios(runs_by_contender, 'thumbgen', 'pyvips', 'wall'))}, "
              f"thumbgen-inproc "
              f"{describe(per_round_ratios(runs_by_contender, 'thumbgen-inproc', 'pyvips', 'wall'))}")


def parse_rate(text):
    """nginx's size syntax (2m, 512k, 1000) in bytes."""
    match = re.fullmatch(r"(\d+)([kKmMgG]?)", text)
    if not match:
        sys.exit(f"bench: error: --rate {text!r} is not an nginx size")
    return int(match[1]) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[match[2].lower()]


def compare_outputs(outdir, reference):
    """(files in outdir with a byte-identical twin in reference, files in outdir)."""
    names = sorted(p.name for p in outdir.iterdir() if p.is_file())
    same = sum(1 for name in names
               if (reference / name).is_file()
               and (reference / name).read_bytes() == (outdir / name).read_bytes())
    return same, len(names)


def check_network_run(run, summary, expected):
    """Problems with a network run's requests, as lines (empty: all is well)."""
    problems = []
    if summary["gets"] != expected or summary["max_per_file"] > 1 or summary["missing"]:
        what = f"{summary['gets']} GETs for {expected} files"
        if summary["repeated"]:
            what += (f"; fetched more than once: {', '.join(summary['repeated'][:5])}"
                     + (" ..." if len(summary["repeated"]) > 5 else ""))
        if summary["missing"]:
            what += f"; never fetched: {', '.join(summary['missing'][:5])}" + (" ..." if len(summary["missing"]) > 5 else "")
        problems.append(f"    nginx: {what} (expected exactly one GET per file)")
    if summary["full"] != summary["gets"]:
        statuses = ", ".join(f"{status} x{n}" for status, n in sorted(summary["statuses"].items()))
        problems.append(f"    nginx: only {summary['full']} of {summary['gets']} GETs were whole 200 "
                        f"responses (statuses: {statuses})")
    if summary["requests"] != summary["gets"]:
        problems.append(f"    nginx: {summary['requests'] - summary['gets']} request(s) other than GET")
    if summary["unparsed"]:
        problems.append(f"    nginx: {summary['unparsed']} access log line(s) not understood")
    return problems


def describe_network_run(summary):
    s = summary
    return (f"    nginx: {s['gets']} GETs ({s['full']} whole 200s, {s['files']} files, at most "
            f"{s['max_per_file']} per file) over {s['connections']} connection(s), "
            f"{s['mib']:.1f} MiB at {s['mib_per_s']:.1f} MiB/s, {s['mean_in_flight']:.1f} in flight "
            f"on average; transfers {s['first_start']:.2f}-{s['last_end']:.2f} s into the run, "
            f"{s['tail']:.2f} s after the last")


def print_network_report(runs_by_contender, sources, connections, rate):
    """Per-round requests and ratios of the network case, then the issue's ratio from medians."""
    net = runs_by_contender.get("thumbgen-net", [])
    curl = runs_by_contender.get("curl-parallel", [])
    local = runs_by_contender.get("thumbgen", [])
    total = sum(s.size for s in sources)
    largest = max(sources, key=lambda s: s.size)
    # nginx lets the first second's worth of a response out at once (its limit is
    # rate x (seconds elapsed + 1)), so a response of S bytes takes about S / rate - 1 s, and
    # files up to `rate` bytes are not slowed at all.
    one_file = max(largest.size / rate - 1, 0)
    unthrottled = sum(1 for s in sources if s.size <= rate)
    print()
    print(f"network case: nginx on 127.0.0.1, limit_rate {rate / 2**20:g} MiB/s per request, "
          f"{connections} connections. The transfers alone take at least ~{one_file:.1f} s: the "
          f"largest file ({largest.link.name}, {largest.size / 2**20:.1f} MiB) at the rate, less the "
          f"1 s burst nginx allows ({unthrottled} of {len(sources)} files are within that burst); "
          f"all bytes over {connections} connections: ~{total / (connections * rate):.1f} s")
    by_round = lambda runs: {r.round: r for r in runs}
    net_r, curl_r, local_r = by_round(net), by_round(curl), by_round(local)
    header = (f"{'round':>5} {'thumbgen':>9} {'curl-par':>9} {'tg-net':>8} {'ratio':>6}  "
              f"{'tg-net GETs':>11} {'max/file':>8} {'conns':>5} {'last_byte_s':>11} {'tail_s':>6} "
              f"{'curl GETs':>9} {'same_as_local':>13}")
    print(header)
    print("-" * len(header))
    ratios = []
    for round_no in sorted(set(net_r) | set(curl_r)):
        n, c, l = net_r.get(round_no), curl_r.get(round_no), local_r.get(round_no)
        ratio = n.wall / max(l.wall, c.wall) if n and c and l else None
        if ratio is not None:
            ratios.append(ratio)
        ns = n.log.summary({s.link.name: s.size for s in sources}, n) if n and n.log else None
        cs = c.log.summary({s.link.name: s.size for s in sources}, c) if c and c.log else None
        def fmt(value, spec=".2f"):
            return "-" if value is None else format(value, spec)
        same = n.same_as_local if n else None
        print(f"{round_no:>5} {fmt(l and l.wall):>9} {fmt(c and c.wall):>9} {fmt(n and n.wall):>8} "
              f"{fmt(ratio):>6}  {fmt(ns and ns['gets'], 'd'):>11} "
              f"{fmt(ns and ns['max_per_file'], 'd'):>8} {fmt(ns and ns['connections'], 'd'):>5} "
              f"{fmt(ns and ns['last_end']):>11} {fmt(ns and ns['tail']):>6} "
              f"{fmt(cs and cs['gets'], 'd'):>9} {'-' if not same else f'{same[0]}/{same[1]}':>13}")
    print(f"(walls in s; ratio = tg-net / max(thumbgen, curl-par) in that round; GETs from nginx's "
          f"access log, expected {len(sources)} = one per file; last_byte_s = when nginx finished "
          f"thumbgen-net's last response, s into its run; tail_s = the run's time after that; "
          f"same_as_local = thumbgen-net outputs byte-identical to thumbgen's local ones)")
    if not (net and curl and local):
        print("network ratio: needs thumbgen, thumbgen-net and curl-parallel (see --only)")
        return
    m_net, m_curl, m_local = median(net, "wall"), median(curl, "wall"), median(local, "wall")
    ratio = m_net / max(m_local, m_curl)
    verdict = "met" if ratio <= NETWORK_TARGET else "NOT met"
    print(f"network ratio: thumbgen-net / max(thumbgen, curl-parallel) = {m_net:.2f} / "
          f"max({m_local:.2f}, {m_curl:.2f}) = {ratio:.2f}   target <= {NETWORK_TARGET:.2f}: {verdict}"
          f"   per round {min(ratios):.2f}-{max(ratios):.2f}   (medians of {len(net)} rounds)")


def trash_folder(bench_dir):
    return bench_dir / "trash"


def set_aside(folder, bench_dir):
    """Moves a previous run's folder into the trash instead of deleting it: on a file system
    without a journal (this benchmark's machine: ext4, no journal), ext4 skips inodes freed in
    the last seconds to minutes when it allocates new ones, so creating files right after
    deleting tens of thousands costs 20 times more (measured: 5,000 small files in 3.4 s just
    after a delete, 0.15 s otherwise). thumbgen creates more files per output than its peers, so
    deleting between runs would charge it most for an artefact of the benchmark itself."""
    if folder.exists():
        trash = trash_folder(bench_dir)
        trash.mkdir(exist_ok=True)
        folder.rename(trash / f"{folder.name}-{time.monotonic_ns()}")


# How long ext4 without a journal passes over a freed inode when it allocates (fs/ext4/ialloc.c,
# recently_deleted: 60 s, and 300 s more while the inode's table block is not yet written back).
FREED_INODES_SKIPPED_S = 360


def trash_emptied_stamp(bench_dir):
    return bench_dir / "trash-emptied"


def empty_trash(bench_dir):
    """Deletes what set_aside moved away: at the end of the benchmark, never between runs; the
    time is kept, so that the next benchmark waits for ext4 to stop skipping those inodes."""
    if trash_folder(bench_dir).exists():
        shutil.rmtree(trash_folder(bench_dir), ignore_errors=True)
        trash_emptied_stamp(bench_dir).touch()


def wait_for_freed_inodes(bench_dir):
    """Waits until the inodes the last emptied trash freed are allocated at full speed again:
    a benchmark started right after another one (or after an interrupted one's trash was
    emptied) would otherwise charge every file its first rounds create, the most to whoever
    creates the most (a ten-size cold run: 40% of its cycles in the allocator, measured)."""
    stamp = trash_emptied_stamp(bench_dir)
    if not stamp.exists():
        return
    left = FREED_INODES_SKIPPED_S - (time.time() - stamp.stat().st_mtime)
    if left > 0:
        print(f"bench: waiting {left:.0f} s for the inodes the last benchmark freed (see set_aside)", flush=True)
        time.sleep(left)


def with_baseline_twins(contenders, baseline):
    """`contenders` and, when a baseline build is given, each one's twin run by that build
    (BASELINE_TWINS: thumbgen-base for thumbgen, and so on), in every workload."""
    if not baseline:
        return contenders
    twins = [BASELINE_TWINS[name] for name in contenders if name in BASELINE_TWINS]
    return list(dict.fromkeys(contenders + twins))


def run_benchmark(args):
    bench_dir = Path(args.bench_dir)
    contenders = [c for c in args.only.split(",") if c]
    unknown = sorted(set(contenders) - set(CONTENDERS))
    if unknown:
        sys.exit(f"bench: error: unknown contender(s) {', '.join(unknown)}; known: {', '.join(CONTENDERS)}")
    if any(c.startswith("thumbgen-base") for c in contenders) and not args.baseline:
        sys.exit("bench: error: thumbgen-base selected but no --baseline binary given (THUMBGEN_BASELINE_BIN)")
    contenders = with_baseline_twins(contenders, args.baseline)
    if any(c.startswith("thumbgen") and not c.startswith("thumbgen-base") for c in contenders) and not args.thumbgen:
        sys.exit("bench: error: thumbgen selected but no --thumbgen binary given")
    workloads = WORKLOADS if args.workload == "all" else (args.workload,)
    network = [c for c in contenders if c in NETWORK_CONTENDERS] if "wallpapers" in workloads else []
    if network and not (args.base_url and args.access_log):
        sys.exit(f"bench: error: {', '.join(network)} need --base-url and --access-log "
                 f"(run scripts/bench, which starts the nginx they fetch from)")
    # SIGTERM (from scripts/bench when it is interrupted) unwinds like Ctrl-C, so that
    # timed_run stops the contender it is timing.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    sources, report = collect_sources(args.packages)
    if not sources:
        sys.exit("bench: error: the corpus is empty; are the wallpaper packages installed?")
    make_corpus_folder(sources, bench_dir / "corpus")
    describe_corpus(sources, report)
    net = None
    if network:
        base_url = args.base_url if args.base_url.endswith("/") else args.base_url + "/"
        net = {"base_url": base_url, "access_log": Path(args.access_log), "rate": parse_rate(args.rate)}
        print(f"network: {base_url} (nginx access log {net['access_log']}), {args.connections} "
              f"connections (thumbgen --downloads/--host-connections, curl --parallel-max); "
              f"wallpapers workload only")
    if args.thumbgen:
        print(f"thumbgen: {args.thumbgen}")
    if args.baseline:
        print(f"thumbgen-base (the baseline build): {args.baseline}")
    logdir = bench_dir / "logs"
    logdir.mkdir(exist_ok=True)
    if trash_folder(bench_dir).exists():
        print("bench: emptying the trash an interrupted benchmark left (see set_aside)")
        empty_trash(bench_dir)
    wait_for_freed_inodes(bench_dir)
    for old in logdir.glob("*-r*-p*.*"):
        old.unlink()   # a previous run's logs would mislead
    problems = 0
    for workload in workloads:
        print()
        if workload == "wallpapers":
            mine = [c for c in contenders if c in LOCAL_CONTENDERS + NETWORK_CONTENDERS]
            problems += run_workload(args, workload, sources, mine, net, logdir)
        elif workload == "static":
            problems += bench_static.run_workload(sys.modules[__name__], args, sources, contenders, logdir)
        elif workload == "site":
            problems += bench_site.run_workload(sys.modules[__name__], args, sources, contenders, logdir)
        elif workload == "orders":
            small = small_sources(bench_dir, sources, args.small_count)
            problems += bench_orders.run_workload(sys.modules[__name__], args, small, contenders, logdir)
        else:
            small = small_sources(bench_dir, sources, args.small_count)
            local = [c for c in contenders if c in LOCAL_CONTENDERS]
            if workload == "sizes10":
                local = [c for c in local if c in SIZES10_CONTENDERS]
                for ten, one in (("thumbgen", "thumbgen-1size"), ("thumbgen-base", "thumbgen-base-1size")):
                    if ten in local and one not in local:
                        local.append(one)
            problems += run_workload(args, workload, small, local, None, logdir)
    empty_trash(bench_dir)
    if problems:
        print(f"bench: {problems} run(s) failed, wrote the wrong number of outputs or fetched a file "
              f"other than once; logs in {logdir}", file=sys.stderr)
        return 1
    return 0


def round_order(contenders, round_no):
    """The contenders' order in round `round_no` (from 1): the first one rotates each round.

    thumbgen and thumbgen-inproc move as one slot, back to back, the one going first swapping
    each round: their ratio is the point of the pair, and on a shared machine two runs a few
    seconds apart see more nearly the same load than two runs a whole round apart."""
    pair = ("thumbgen", "thumbgen-inproc")
    paired = all(name in contenders for name in pair)
    slots = []
    for name in contenders:
        if paired and name in pair:
            if pair not in slots:
                slots.append(pair)   # where the first of the two was listed
        else:
            slots.append(name)
    shift = (round_no - 1) % len(slots)
    order = []
    for slot in slots[shift:] + slots[:shift]:
        if isinstance(slot, tuple):
            order += slot if round_no % 2 else slot[::-1]
        else:
            order.append(slot)
    return order


def run_workload(args, workload, sources, contenders, net, logdir):
    """Runs `contenders` round-robin on `sources`, prints the workload's table and summaries;
    returns the number of runs that failed. `net` (wallpapers only): the nginx case's settings."""
    bench_dir = Path(args.bench_dir)
    if not contenders:
        print(f"workload {workload}: no contender selected for it")
        return 0
    if workload != "sizes10":
        contenders = [c for c in contenders if not c.endswith("1size")]
    halves = split_in_two(sources)
    stem = "" if workload == "wallpapers" else f"-{workload}"   # bench_cache.py reads manifest.csv
    files = {
        "manifest": write_manifest(bench_dir / f"manifest{stem}.csv", (s.link for s in sources)),
        "all": write_list(bench_dir / f"corpus{stem}.txt", sources),
        "halves": [write_list(bench_dir / f"corpus{stem}-half{i + 1}.txt", h) for i, h in enumerate(halves)],
        "half_paths": [[str(s.link) for s in h] for h in halves],
    }
    if workload == "sizes10":
        files["manifest"] = write_sized_manifest(bench_dir / "manifest-sizes10.csv",
                                                 (s.link for s in sources), SIZES10)
        files["manifest1"] = write_sized_manifest(bench_dir / "manifest-sizes1.csv",
                                                  (s.link for s in sources), SIZES10[-1:])
    print(f"workload {workload}: {len(sources)} files; halves for the 2-process contenders: "
          f"{len(halves[0])} + {len(halves[1])} files")
    network = net is not None and any(c in NETWORK_CONTENDERS for c in contenders)
    access_log = net["access_log"] if network else None
    if network:
        files["net_manifest"] = write_manifest(bench_dir / "manifest-net.csv",
                                               (source_url(net["base_url"], s) for s in sources))
        files["curl_config"] = write_curl_config(bench_dir / "curl-parallel.conf", sources,
                                                 net["base_url"], bench_dir / "out" / "curl-parallel")
    print(f"work folder: {bench_dir} (manifest{stem}.csv{', manifest-net.csv, curl-parallel.conf, nginx/' if network else ''}, "
          f"corpus/, {'small/, ' if workload == 'small' else ''}out/, logs/)")
    warm_page_cache(sources)
    if network:
        preflight(net["base_url"], sources)
    print_load("before")

    sizes = {s.link.name: s.size for s in sources}
    runs_by_contender = {name: [] for name in CONTENDERS if name in contenders}
    problems = 0
    for round_no in range(1, args.rounds + 1):
        for name in round_order(contenders, round_no):
            outdir = bench_dir / "out" / name
            set_aside(outdir, bench_dir)
            set_aside(Path(str(outdir) + ".cache"), bench_dir)
            outdir.mkdir(parents=True)
            run = Run(name, round_no, workload)
            offset = log_size(access_log) if name in NETWORK_CONTENDERS else 0
            timed_run(run, contender_commands(name, outdir, files, args.thumbgen, args.connections,
                                              args.baseline),
                      logdir)
            if name == "curl-parallel":
                count_fetched(run, outdir, sources)
            else:
                count_outputs(run, outdir)
            runs_by_contender[name].append(run)
            print(f"{workload} round {round_no}/{args.rounds} {name:<19} wall {run.wall:6.2f} s  "
                  f"cpu {run.cpu:6.2f} s  peak rss {run.rss_max_kib / 1024:6.1f} MiB  "
                  f"parent {run.parent_kib / 1024:6.1f}  tree {run.tree_kib / 1024:6.1f} MiB  "
                  f"{'fetched' if name == 'curl-parallel' else 'outputs'} {run.outputs}/"
                  f"{expected_outputs(name, workload, len(sources))}  "
                  f"exit {','.join(map(str, run.exit_codes))}",
                  flush=True)
            failed = (run.failed or run.outputs != expected_outputs(name, workload, len(sources))
                      or run.strays)
            if name in NETWORK_CONTENDERS:
                run.log = read_access_log(access_log, offset)
                summary = run.log.summary(sizes, run)
                print(describe_network_run(summary), flush=True)
                network_problems = check_network_run(run, summary, len(sources))
                if network_problems:
                    print("\n".join(network_problems))
                    failed = True
            if name == "thumbgen-net" and (bench_dir / "out" / "thumbgen").is_dir():
                run.same_as_local = compare_outputs(outdir, bench_dir / "out" / "thumbgen")
            if failed:
                run.flagged = True
                problems += 1
                if run.strays:
                    print(f"    unexpected files: {', '.join(run.strays[:5])}"
                          + (" ..." if len(run.strays) > 5 else ""))
                print(log_tail(logdir, run) or "    (no stderr)")
    print_load("after")
    print()
    print(f"workload {workload} - input: {len(sources)} files, {sum(s.size for s in sources):,} bytes; "
          f"{SIZE}x{SIZE} inside, JPEG q{QUALITY}; {os.cpu_count()} CPUs")
    print_table(runs_by_contender, lambda name: expected_outputs(name, workload, len(sources)))
    if workload in ("small", "wallpapers"):
        print_peer_summary(workload, runs_by_contender)
    print_baseline_summary(workload, runs_by_contender)
    print_isolation_summary(workload, runs_by_contender)
    print_shards_summary(workload, runs_by_contender)
    if workload == "sizes10":
        print_sizes_summary(runs_by_contender)
    if network:
        print_network_report(runs_by_contender, sources, args.connections, net["rate"])
    return problems


def preflight(base_url, sources):
    """Fails early, with a hint, if nginx does not serve the corpus (e.g. a folder nginx's
    worker user cannot read): fetches the smallest file and compares its bytes."""
    import urllib.request
    smallest = min(sources, key=lambda s: s.size)
    url = source_url(base_url, smallest)
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read()
    except OSError as error:
        sys.exit(f"bench: error: nginx does not serve the corpus: GET {url}: {error} (nginx/error.log "
                 f"says why; a 403 usually means its worker user, nobody, cannot read BENCH_DIR)")
    if body != smallest.link.read_bytes():
        sys.exit(f"bench: error: GET {url} returned {len(body)} bytes that differ from {smallest.link}")


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run")
    run.add_argument("--bench-dir", required=True)
    run.add_argument("--rounds", type=int, default=5)
    run.add_argument("--only", default=",".join(CONTENDERS))
    run.add_argument("--thumbgen", default="")
    run.add_argument("--baseline", default="", help="another thumbgen binary, run as thumbgen-base")
    run.add_argument("--packages", nargs="+", required=True)
    run.add_argument("--workload", choices=[*WORKLOADS, "static", "orders", "site", "all"], default="all",
                     help="the wallpapers, the small crops of them, those at ten sizes, or all "
                          "three in turn; or the static-site workload (bench_static.py) or the "
                          "manifest-order workload (bench_orders.py) or the built-site workload "
                          "(bench_site.py), which all leaves out")
    run.add_argument("--static-avif", action="store_true",
                     help="static workload: every contender writes AVIF (q50) too")
    run.add_argument("--small-count", type=int, default=SMALL_COUNT,
                     help="images in the small workload")
    run.add_argument("--base-url", default="", help="where nginx serves the corpus folder")
    run.add_argument("--access-log", default="", help="nginx's access log (log_format bench)")
    run.add_argument("--connections", type=int, default=16,
                     help="thumbgen-net's --downloads/--host-connections, curl's --parallel-max")
    run.add_argument("--rate", default="2m", help="nginx's limit_rate, for the report")
    worker = commands.add_parser("worker")
    worker.add_argument("library", choices=["pyvips", "pyvips10", "pillow"])
    worker.add_argument("listfile")
    worker.add_argument("outdir")
    small = commands.add_parser("make-small")
    small.add_argument("listfile")
    small.add_argument("outdir")
    small.add_argument("count", type=int)
    args = parser.parse_args()

    if args.command == "run":
        return run_benchmark(args)
    if args.command == "make-small":
        return make_small_images(args.listfile, args.outdir, args.count)
    paths = Path(args.listfile).read_text().splitlines()
    work = {"pyvips": worker_pyvips, "pyvips10": worker_pyvips10, "pillow": worker_pillow}[args.library]
    return work(paths, args.outdir)


if __name__ == "__main__":
    sys.exit(main())
