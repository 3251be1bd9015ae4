"""The built-site workload of scripts/bench (`scripts/bench --workload site`).

Issue 46: `thumbgen site` over a built site should cost about what the folder run of the same
images costs (target: at most 1.10 x its wall), and a rebuilt site (the generator wrote its
plain pages again) about what a warm run costs.

THE SITE. The wallpapers corpus copied once into BENCH_DIR/site-src/images/, and PAGES pages
(posts/pNNN/index.html) of PER_PAGE images each, drawn by random.Random(SEED): 117 of the 118
images are shown, most on several pages. Each round a fresh copy of it: the images hard-linked
(free), the pages copied.

THE CONTENDERS, round-robin (the first rotating each round), each cold with a fresh cache:

    thumbgen-site    thumbgen site SITE --cache-dir SITE.cache: the ladder 320, 640, 960,
                     1280, 1920 (never above an image's own width; its own width on top) in
                     WebP and JPEG (PNG with alpha), placeholders as backgrounds, the pages
                     rewritten
    thumbgen-folder  thumbgen SITE/images --out OUT --size 320,640,960,1280,1920
                     --format webp,jpeg --cache-dir OUT.cache: the same widths and formats
                     as a folder run (a width an image cannot reach is its own width, as in
                     the ladder; a few more outputs than the site's, no placeholders)

THE WARM RUNS. After each cold run, in its folders: for the site, its plain pages copied in
again (what a rebuild leaves) and the command run again; for the folder, the command run
again; WARM_REPEATS each, the median kept.

CHECKS: every run exits 0; the site's summary says every image rewritten and none failed; its
warm runs write no output.
"""

import os
import random
import re
import shutil
import statistics
import time
from pathlib import Path

CONTENDERS = ("thumbgen-site", "thumbgen-folder")
PAGES = 200
PER_PAGE = 3
SEED = 46
WIDTHS = (320, 640, 960, 1280, 1920)
TARGET = 1.10
WARM_REPEATS = 3
SETTLE = 1.1   # thumbgen notes an output in its warm journal once it stood still a second
SITE_LINE = re.compile(r"images: (\d+) rewritten, (\d+) failed")
SUMMARY = re.compile(r"(\d+) rows: (\d+) written, (\d+) unchanged, (\d+) failed")


def make_site(bench_dir, sources):
    """BENCH_DIR/site-src: the corpus' images copied (once) and the pages written."""
    site = bench_dir / "site-src"
    images = site / "images"
    images.mkdir(parents=True, exist_ok=True)
    names = []
    for source in sources:
        target = images / source.link.name
        if not target.exists() or target.stat().st_size != source.size:
            shutil.copyfile(source.path, target)
        names.append(target.name)
    posts = site / "posts"
    shutil.rmtree(posts, ignore_errors=True)
    draw = random.Random(SEED)
    shown = set()
    for page in range(PAGES):
        chosen = draw.sample(sorted(names), PER_PAGE)
        shown.update(chosen)
        body = "".join(f'<p>Paragraph {i}.</p>\n<img src="../../images/{name}" alt="{name}">\n'
                       for i, name in enumerate(chosen))
        folder = posts / f"p{page:03d}"
        folder.mkdir(parents=True)
        (folder / "index.html").write_text(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>Post {page}</title></head>'
            f"<body>\n<h1>Post {page}</h1>\n{body}</body></html>\n")
    return site, len(shown)


def fresh_site(bench, bench_dir, source_site, name):
    """A copy of the site for one run: images hard-linked, pages copied."""
    site = bench_dir / "out" / name
    bench.set_aside(site, bench_dir)
    bench.set_aside(Path(f"{site}.cache"), bench_dir)
    (site / "images").mkdir(parents=True)
    for image in (source_site / "images").iterdir():
        os.link(image, site / "images" / image.name)
    shutil.copytree(source_site / "posts", site / "posts")
    return site


def command(args, name, site):
    if name == "thumbgen-site":
        return [args.thumbgen, "site", str(site), "--cache-dir", f"{site}.cache"]
    return [args.thumbgen, str(site / "images"), "--out", str(site / "out"), "--size",
            ",".join(map(str, WIDTHS)), "--format", "webp,jpeg", "--cache-dir", f"{site}.cache"]


def problems_of(bench, run, logdir, images, warm):
    """What went wrong with a run, as lines."""
    if run.failed:
        return [f"{run.contender} (round {run.round}) exited {','.join(map(str, run.exit_codes))}"]
    err = logdir / f"{run.workload}-{run.contender}-r{run.round}-p0.err"
    text = err.read_text(errors="replace") if err.exists() else ""
    found = []
    if run.contender.startswith("thumbgen-site"):
        counts = SITE_LINE.findall(text)
        if not counts or counts[-1] != (str(images), "0"):
            found.append(f"{run.contender} (round {run.round}): {counts[-1] if counts else 'no site line'}, "
                         f"expected {images} images rewritten")
    rows = SUMMARY.findall(text)
    if warm and (not rows or rows[-1][1] != "0"):
        found.append(f"{run.contender} (round {run.round}): a warm run wrote outputs: {rows[-1] if rows else '-'}")
    return found


def run_workload(bench, args, sources, contenders, logdir):
    """Runs the site contenders among `contenders` round-robin; prints each run and the
    tables. Returns the number of runs that went wrong."""
    names = [c for c in CONTENDERS if c in contenders]
    if not names:
        print(f"workload site: no contender selected for it (its contenders: {', '.join(CONTENDERS)})")
        return 0
    bench_dir = Path(args.bench_dir)
    source_site, shown = make_site(bench_dir, sources)
    print(f"workload site: {PAGES} pages of {PER_PAGE} images each over {len(sources)} images "
          f"({shown} shown), widths {','.join(map(str, WIDTHS))}, WebP and JPEG; against the folder run "
          f"of the same images; warm runs after each cold run")
    bench.warm_page_cache(sources)
    bench.print_load("before")
    runs = {name: [] for name in names}
    warms = {name: [] for name in names}
    problems = 0
    for round_no in range(1, args.rounds + 1):
        for name in bench.round_order(names, round_no):
            site = fresh_site(bench, bench_dir, source_site, name)
            run = bench.Run(name, round_no, "site")
            bench.timed_run(run, [command(args, name, site)], logdir)
            found = problems_of(bench, run, logdir, PAGES * PER_PAGE, warm=False)
            runs[name].append(run)
            walls = []
            for repeat in range(WARM_REPEATS):
                if name == "thumbgen-site":
                    shutil.rmtree(site / "posts")
                    shutil.copytree(source_site / "posts", site / "posts")
                time.sleep(SETTLE if repeat == 0 else 0)
                warm = bench.Run(f"{name}-warm", round_no, "site")
                bench.timed_run(warm, [command(args, name, site)], logdir)
                found += problems_of(bench, warm, logdir, PAGES * PER_PAGE, warm=True)
                walls.append(warm.wall)
            warms[name].append(statistics.median(walls))
            print(f"site round {round_no}/{args.rounds} {name:<16} wall {run.wall:6.2f} s  cpu {run.cpu:6.2f} s  "
                  f"peak rss {run.rss_max_kib / 1024:6.1f} MiB  warm {warms[name][-1]:.3f} s  "
                  f"exit {','.join(map(str, run.exit_codes))}", flush=True)
            for line in found:
                print(f"bench: error: {line}", flush=True)
            problems += bool(found)
    bench.print_load("after")
    print()
    print(f"workload site: cold runs, medians of {args.rounds} rounds")
    for name in names:
        print(f"  {name:<16} wall_s {bench.median(runs[name], 'wall'):7.2f}  cpu_s {bench.median(runs[name], 'cpu'):7.2f}"
              f"  warm_s {statistics.median(warms[name]):6.3f}")
    if len(names) == 2:
        walls = bench.per_round_ratios(runs, "thumbgen-site", "thumbgen-folder", "wall")
        cpus = bench.per_round_ratios(runs, "thumbgen-site", "thumbgen-folder", "cpu")
        verdict = "met" if walls and statistics.median(walls) <= TARGET else "NOT met"
        print(f"site / folder: wall {bench.describe_per_round(walls)}   cpu {bench.describe_per_round(cpus)}"
              f"   target <= {TARGET}: {verdict}")
        ratios = [s / f for s, f in zip(warms["thumbgen-site"], warms["thumbgen-folder"]) if f > 0]
        print(f"site rebuilt / folder warm: {bench.describe_per_round(ratios)}")
    return problems
