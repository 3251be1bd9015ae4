#!/usr/bin/env python3
"""The cache half of scripts/bench: how much a second run costs (run scripts/bench; it sets up).

    bench_cache.py --bench-dir DIR --thumbgen BIN --rounds N [--rows 100000]
                   [--base-url URL --access-log FILE]

Three cases, each printed as a table of medians over the rounds:

  local    the benchmark corpus (DIR/manifest.csv, written by bench.py) from local files.
           Per round: a cold run (empty cache, empty --out), then a warm run (same cache, same
           --out: every output up to date), then a refill run (same cache, --out emptied: the
           CI job whose cache was restored but whose checkout is new). Target: warm <= 5% of cold.
  network  the same files from nginx, with a `max_age` column of 3600 (fresh for an hour), the
           same three runs; nginx's access log counts the GETs of each run. Target: warm <= 5%
           of cold, and zero full GETs (status 200) in the warm run.
  rows     --rows rows (default 100,000) over small generated PNGs, 5 sizes each, all cached:
           one cold run to fill the cache, then warm runs, with and without --report. Target:
           over 20,000 rows/s, peak RSS under 150 MB.

Every run is timed by GNU time (wall, CPU, peak RSS). Standard library only, except that the
generated images are written with pyvips.
"""

import argparse
import csv
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

SIZE, QUALITY = 256, 80
FLAGS = ["--size", f"{SIZE}x{SIZE}", "--fit", "inside", "--format", "jpeg", "--quality", str(QUALITY)]
GET_LINE = re.compile(r'"GET (?P<path>\S+) HTTP/[\d.]+" (?P<status>\d{3}) ')


def timed(command, log):
    """Runs command under GNU time; returns (wall s, cpu s, peak RSS MiB, stderr tail)."""
    stats = log.with_suffix(".time")
    with open(log, "w") as err:
        status = subprocess.call(["/usr/bin/time", "-f", "%e %U %S %M", "-o", str(stats), *command],
                                 stdout=subprocess.DEVNULL, stderr=err)
    tail = log.read_text(errors="replace").strip().splitlines()[-1:] or [""]
    if status != 0:
        sys.exit(f"bench_cache: {' '.join(command)} exited {status}: {tail[0]}")
    wall, user, system, rss = stats.read_text().split()[-4:]
    return float(wall), float(user) + float(system), int(rss) / 1024, tail[0]


def access_log_lines(path, offset):
    """GET lines nginx logged after byte offset, once the log has stopped growing."""
    size = path.stat().st_size
    for _ in range(10):
        time.sleep(0.2)
        if path.stat().st_size == size:
            break
        size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(offset)
        return [m for m in map(GET_LINE.search, f.read().decode(errors="replace").splitlines()) if m]


def three_runs(thumbgen, manifest, work, name, rounds, extra, access_log=None):
    """Cold, warm and refill runs per round; returns {kind: [(wall, cpu, rss, gets, full)]}."""
    results = {"cold": [], "warm": [], "refill": []}
    for round_no in range(1, rounds + 1):
        out, cache = work / f"{name}-out", work / f"{name}-cache"
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
        for kind in ("cold", "warm", "refill"):
            if kind == "refill":
                shutil.rmtree(out, ignore_errors=True)
            offset = access_log.stat().st_size if access_log else 0
            command = [thumbgen, str(manifest), "--out", str(out), "--cache-dir", str(cache), *FLAGS, *extra]
            wall, cpu, rss, tail = timed(command, work / f"{name}-{kind}-r{round_no}.err")
            gets = access_log_lines(access_log, offset) if access_log else []
            full = sum(1 for g in gets if g["status"] == "200")
            results[kind].append((wall, cpu, rss, len(gets), full))
            print(f"  {name} round {round_no} {kind:<6} wall {wall:6.2f} s  cpu {cpu:6.2f} s  "
                  f"rss {rss:6.1f} MiB" + (f"  GETs {len(gets)} (200: {full})" if access_log else "")
                  + f"   [{tail.removeprefix('thumbgen: ')}]")
    return results


def print_three(title, results, network):
    cold = statistics.median(r[0] for r in results["cold"])
    print(f"\n{title} (medians over {len(results['cold'])} rounds)")
    print("| run | wall s | CPU s | peak RSS MiB | wall / cold |" + (" GETs | full GETs (200) |" if network else ""))
    print("|---|---|---|---|---|" + ("---|---|" if network else ""))
    for kind, label in (("cold", "cold: empty cache, empty --out"),
                        ("warm", "warm: same cache, --out up to date"),
                        ("refill", "refill: same cache, empty --out")):
        rows = results[kind]
        wall = statistics.median(r[0] for r in rows)
        line = (f"| {label} | {wall:.3f} | {statistics.median(r[1] for r in rows):.2f} | "
                f"{statistics.median(r[2] for r in rows):.1f} | {wall / cold:.3f} |")
        if network:
            line += f" {max(r[3] for r in rows)} | {max(r[4] for r in rows)} |"
        print(line)
    warm = statistics.median(r[0] for r in results["warm"])
    verdict = "meets" if warm <= 0.05 * cold else "MISSES"
    print(f"warm / cold = {warm / cold:.3f} ({verdict} the target of 0.05)"
          + (f"; full GETs in warm runs: {max(r[4] for r in results['warm'])} (target 0)" if network else ""))
    return warm <= 0.05 * cold and (not network or max(r[4] for r in results["warm"]) == 0)


def make_rows_case(work, rows):
    """Small PNGs (rows / 5 of them, each a different colour so that no two share a digest,
    dated an hour back so that their stamps are recorded) and a manifest naming each at 5
    sizes: rows distinct outputs."""
    folder = work / "rows-v2"
    images = rows // 5
    manifest = folder / f"manifest-{rows}.csv"
    if manifest.exists() and len(list((folder / "img").glob("*.png"))) >= images:
        return manifest
    import pyvips
    (folder / "img").mkdir(parents=True, exist_ok=True)
    past = time.time() - 3600
    for i in range(images):
        path = folder / "img" / f"i{i:06d}.png"
        if not path.exists():
            pixel = [(i >> 16) & 255, (i >> 8) & 255, i & 255]   # every image distinct
            (pyvips.Image.black(24, 16, bands=3) + pixel).cast("uchar").write_to_file(str(path))
            os.utime(path, (past, past))
    with open(manifest, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["src", "size", "out"])
        for i in range(images):
            for size in (4, 6, 8, 10, 12):
                writer.writerow([f"img/i{i:06d}.png", size, "{name}-{w}x{h}.png"])
    return manifest


def rows_case(thumbgen, work, rows, rounds):
    manifest = make_rows_case(work, rows)
    out, cache = work / "rows-v2" / "out", work / "rows-v2" / "cache"
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)
    base = [thumbgen, str(manifest), "--out", str(out), "--cache-dir", str(cache)]
    cold = timed(base, work / "rows-cold.err")
    print(f"  rows cold (fills the cache): wall {cold[0]:.1f} s, {rows / cold[0]:,.0f} rows/s, rss {cold[2]:.1f} MiB")
    results = {"warm": [], "warm + --report": []}
    for round_no in range(1, rounds + 1):
        for kind, extra in (("warm", []), ("warm + --report", ["--report", str(work / "rows-v2" / "report.json")])):
            wall, cpu, rss, tail = timed(base + extra, work / f"rows-{kind.replace(' ', '')}-r{round_no}.err")
            results[kind].append((wall, cpu, rss))
            print(f"  rows round {round_no} {kind:<16} wall {wall:6.2f} s  cpu {cpu:5.2f} s  rss {rss:6.1f} MiB"
                  f"  {rows / wall:,.0f} rows/s   [{tail.removeprefix('thumbgen: ')}]")
    print(f"\n{rows:,}-row all-cached manifest ({rows // 5:,} images x 5 sizes; medians over {rounds} rounds; "
          f"rows/s = rows / process wall time, start-up included)")
    print("| run | wall s | CPU s | rows/s | peak RSS MiB |")
    print("|---|---|---|---|---|")
    print(f"| cold (fills the cache) | {cold[0]:.2f} | {cold[1]:.2f} | {rows / cold[0]:,.0f} | {cold[2]:.1f} |")
    ok = True
    for kind, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        rss = max(r[2] for r in runs)
        ok = ok and rows / wall > 20000 and rss < 150
        print(f"| {kind} | {wall:.2f} | {statistics.median(r[1] for r in runs):.2f} | {rows / wall:,.0f} | {rss:.1f} |")
    print(f"targets: over 20,000 rows/s and under 150 MB peak RSS: {'met' if ok else 'MISSED'}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench-dir", required=True)
    parser.add_argument("--thumbgen", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--cases", default="local,network,rows")
    parser.add_argument("--base-url", default="")
    parser.add_argument("--access-log", default="")
    args = parser.parse_args()
    bench = Path(args.bench_dir)
    work = bench / "cache-bench"
    work.mkdir(parents=True, exist_ok=True)
    cases = args.cases.split(",")
    ok = True
    if "local" in cases:
        print("\n== cache: local files ==")
        ok &= print_three("local files", three_runs(args.thumbgen, bench / "manifest.csv", work, "local",
                                                    args.rounds, []), network=False)
    if "network" in cases and args.base_url:
        print("\n== cache: URLs within max_age ==")
        with open(bench / "manifest.csv") as f:
            names = [Path(row["src"]).name for row in csv.DictReader(f)]
        manifest = work / "manifest-net-maxage.csv"
        base = args.base_url if args.base_url.endswith("/") else args.base_url + "/"
        with open(manifest, "w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(["src", "max_age"])
            writer.writerows([base + name, 3600] for name in names)
        extra = ["--allow-private-network", "--downloads", "16", "--host-connections", "16"]
        ok &= print_three("URLs from nginx, max_age 3600", three_runs(
            args.thumbgen, manifest, work, "network", args.rounds, extra, Path(args.access_log)), network=True)
    if "rows" in cases:
        print(f"\n== cache: {args.rows:,} cached rows ==")
        ok &= rows_case(args.thumbgen, work, args.rows, args.rounds)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
