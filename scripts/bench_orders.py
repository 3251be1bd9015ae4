"""The manifest-order workload of scripts/bench (`scripts/bench --workload orders`).

Issue 45: a source's rows should cost one decode wherever they stand in the manifest. The
small workload's JPEGs (bench.py's small_sources: --small-count crops of 800x500) are each
asked for at the ten sizes of the sizes10 workload (32, 48, ... 176 px, a square box, "inside"),
out `{name}-{size}.jpg`, in three row orders of the same rows:

    grouped     a source's ten rows together, the sources in file order
    size-outer  for size in sizes: for file in files (what a user's script writes, and what
                a manifest sorted by output folder looks like)
    shuffled    the grouped rows shuffled by random.Random(45): the same order every time

bench.py's `run --workload orders` calls run_workload() here, which times, round-robin (the
first contender rotating each round, as in every workload), each contender selected by --only
(all of them by default; the thumbgen-base ones when a baseline is given):

    thumbgen-grouped, thumbgen-size-outer, thumbgen-shuffled   a ten-size manifest each
    thumbgen-1size                                             the one-size manifest: every
                                                               source once, at 128 px (run
                                                               whenever an order runs)
    thumbgen-base-grouped, ... thumbgen-base-1size             the same with the baseline
                                                               build (--baseline)

each a cold run with thumbgen's defaults, given the manifest file, a fresh --out and a fresh
cache (`--cache-dir OUT.cache`) each run, and bench.py's flags (256x256 inside, JPEG q80; each
row's size overrides the box). The table gives per order the medians of wall_s and cpu_s, the
ratio ten-size / one-size of the same binary in the same round (per round and median; issue
45's target: at most 2.5) and the spread of the three orders' ten-size walls, max / min per
round (target: at most 1.10).

THE WARM RUNS. After each ten-size cold run, in its --out and its cache (so none of this is
in the cold figures): a pause of SETTLE s (thumbgen notes an output in its warm journal only
once the file has stood still a second), a first warm run of the same manifest (it checks
every output by its bytes and writes the journal), WARM_REPEATS steady warm runs, then
WARM_REPEATS runs of a one-row manifest (the order's first row, cached and in place: the
start-up). Their medians within the round give rows/s beyond start-up = rows / (warm -
one_row) (issue 45's target: at least 150,000); the table gives the median over the rounds.
The one-row runs come last because a run replaces the --out's journal with its own rows.

CHECKS (a failure is counted and printed, and makes the benchmark exit 1): every cold run must
exit 0 and leave exactly the outputs asked for, each a JPEG named {name}-{size}.jpg exactly
`size` wide (the sources are 800x500, so the width decides), nothing missing and nothing else
in --out; every warm run must exit 0 and its summary line must say every row unchanged, none
written, none failed.

Standard library only; the timing, the sampler and the table are bench.py's (handed in as
`bench`, because bench.py runs as __main__ and imports this module).
"""

import csv
import os
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ORDERS = ("grouped", "size-outer", "shuffled")
ONE_SIZE = 128
SEED = 45
# Each run of this build next to the same run of the baseline's in the round-robin, so that
# their per-round ratio compares runs close in time.
CONTENDERS = tuple(f"{binary}-{kind}" for kind in ORDERS + ("1size",)
                   for binary in ("thumbgen", "thumbgen-base"))
# thumbgen-1size is bench.py's too (the sizes10 workload's, at 176 px); it has its twin there.
BASELINE_TWINS = {f"thumbgen-{order}": f"thumbgen-base-{order}" for order in ORDERS}
TEN_TO_ONE_TARGET = 2.5
SPREAD_TARGET = 1.10
WARM_TARGET = 150_000   # rows/s beyond start-up
WARM_REPEATS = 5        # warm runs, then one-row runs, a round: each a fraction of a second
SETTLE = 1.1            # s between a cold run's end and its first warm run
SUMMARY = re.compile(r"(\d+) rows: (\d+) written, (\d+) unchanged, (\d+) failed")


@dataclass
class Manifest:
    path: Path        # every row
    first_row: Path   # its first row alone (the one-row warm runs)
    rows: int


@dataclass
class Warm:
    """One round's warm runs of one ten-size contender, in its cold run's --out and cache."""
    round: int
    rows: int
    first: float      # wall s of the first warm run (checks outputs by their bytes, writes the journal)
    warm: float       # median wall s of the steady warm runs
    warm_cpu: float   # their median CPU s
    one_row: float    # median wall s of the one-row runs: the start-up

    @property
    def rows_per_s(self):
        """Rows per second beyond start-up; None when the warm run took no longer than the
        one-row run (too few rows to measure, or a noisy machine)."""
        beyond = self.warm - self.one_row
        return self.rows / beyond if beyond > 0 else None


def binary_of(name):
    """thumbgen or thumbgen-base: which build a contender runs."""
    return "thumbgen-base" if name.startswith("thumbgen-base-") else "thumbgen"


def kind_of(name):
    """The manifest a contender runs: one of ORDERS, or 1size."""
    return name.removeprefix(binary_of(name) + "-")


# ---------------------------------------------------------------------------------------------
# Manifests


def order_rows(srcs, sizes, order):
    """The (src, size) rows naming every source at every size, in `order` (one of ORDERS)."""
    grouped = [(src, size) for src in srcs for size in sizes]
    if order == "grouped":
        return grouped
    if order == "size-outer":
        return [(src, size) for size in sizes for src in srcs]
    if order == "shuffled":
        random.Random(SEED).shuffle(grouped)
        return grouped
    raise ValueError(order)


def write_rows(path, rows):
    """A `src,size,out` manifest of (src, size) rows, each output named {name}-{size}.jpg."""
    with open(path, "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["src", "size", "out"])
        writer.writerows([str(src), f"{size}x{size}", f"{{name}}-{size}.jpg"] for src, size in rows)
    return path


def write_manifests(bench_dir, sources, sizes):
    """{kind: Manifest} for each order (ten sizes) and for 1size (ONE_SIZE, grouped)."""
    srcs = [s.link for s in sources]
    manifests = {}
    for kind in ORDERS + ("1size",):
        rows = order_rows(srcs, (ONE_SIZE,), "grouped") if kind == "1size" else order_rows(srcs, sizes, kind)
        manifests[kind] = Manifest(write_rows(bench_dir / f"manifest-order-{kind}.csv", rows),
                                   write_rows(bench_dir / f"manifest-order-{kind}-row1.csv", rows[:1]),
                                   len(rows))
    return manifests


def selected(contenders):
    """The workload's contenders among `contenders`, and the one-size reference of each build
    that runs an order (the ratios need it), in CONTENDERS' order."""
    names = {c for c in contenders if c in CONTENDERS}
    names |= {f"{binary_of(n)}-1size" for n in names if kind_of(n) in ORDERS}
    return [c for c in CONTENDERS if c in names]


# ---------------------------------------------------------------------------------------------
# Runs and checks


def command(bench, args, name, manifest, outdir):
    """The contender's command line for `manifest` (a cold or a warm run: same folders)."""
    binary = args.baseline if binary_of(name) == "thumbgen-base" else args.thumbgen
    return [binary, str(manifest), *bench.thumbgen_options(outdir)]


def check_outputs(bench, run, outdir, sources, sizes):
    """Fills run.outputs with the outputs that are what was asked (every source at every
    size, named {name}-{size}.jpg, a JPEG exactly `size` wide) and run.strays with every file
    that is not, and with the outputs missing."""
    expected = {f"{s.link.stem}-{size}.jpg": size for s in sources for size in sizes}
    found = set()
    for path in sorted(p for p in outdir.rglob("*") if p.is_file()):
        size = expected.get(path.name) if path.parent == outdir else None
        dims = bench.jpeg_dimensions(path) if size else None
        if size is None:
            run.strays.append(f"{path.relative_to(outdir)}: not an output asked for")
        elif dims is None:
            run.strays.append(f"{path.name}: not a JPEG")
        elif dims[0] != size:
            run.strays.append(f"{path.name}: {dims[0]}x{dims[1]}, not {size} wide")
        else:
            found.add(path.name)
    run.outputs = len(found)
    missing = sorted(set(expected) - found)
    if missing:
        run.strays.append(f"{len(missing)} output(s) missing: {', '.join(missing[:5])}"
                          + (" ..." if len(missing) > 5 else ""))


def check_warm(bench, run, logdir, rows):
    """Problems with a warm run, as lines: a failure, or a summary line that does not say
    all `rows` rows unchanged (none written, none failed)."""
    err = logdir / f"{run.workload}-{run.contender}-r{run.round}-p0.err"
    text = err.read_text(errors="replace") if err.exists() else ""
    counts = [tuple(map(int, m.groups())) for m in SUMMARY.finditer(text)]
    if run.failed:
        return [f"{run.contender} (round {run.round}) exited {run.exit_codes[0]}"]
    if not counts:
        return [f"{run.contender} (round {run.round}): no summary line in {err}"]
    total, written, unchanged, failed = counts[-1]
    if (total, written, unchanged, failed) != (rows, 0, rows, 0):
        return [f"{run.contender} (round {run.round}): {total} rows, {written} written, "
                f"{unchanged} unchanged, {failed} failed; expected {rows} rows all unchanged"]
    return []


def measure_warm(bench, args, name, round_no, manifest, outdir, logdir):
    """The warm runs after a cold run, in its folders (module docstring). Returns (Warm,
    problems as lines)."""
    problems = []

    def timed(label, path, rows):
        run = bench.Run(f"{name}-{label}", round_no, "orders")
        bench.timed_run(run, [command(bench, args, name, path, outdir)], logdir)
        problems.extend(check_warm(bench, run, logdir, rows))
        return run

    time.sleep(SETTLE)
    first = timed("warm-first", manifest.path, manifest.rows)
    warm = [timed(f"warm{i}", manifest.path, manifest.rows) for i in range(1, WARM_REPEATS + 1)]
    one = [timed(f"one-row{i}", manifest.first_row, 1) for i in range(1, WARM_REPEATS + 1)]
    result = Warm(round_no, manifest.rows, first.wall, bench.median(warm, "wall"),
                  bench.median(warm, "cpu"), bench.median(one, "wall"))
    return result, problems


def report_failure(bench, run, logdir, lines):
    """Prints why a run failed, loudly (standard error), with its stderr's tail."""
    print(f"bench: error: {run.contender} (round {run.round}) failed: exit "
          f"{','.join(map(str, run.exit_codes))}, {run.outputs} valid outputs", file=sys.stderr, flush=True)
    for line in lines[:8]:
        print(f"    {line}", flush=True)
    if len(lines) > 8:
        print(f"    ... and {len(lines) - 8} more")
    print(bench.log_tail(logdir, run) or "    (no stderr)", flush=True)


# ---------------------------------------------------------------------------------------------
# The workload: rounds, checks, tables


def run_workload(bench, args, sources, contenders, logdir):
    """Runs the order contenders among `contenders` round-robin on `sources` (the small
    JPEGs), each ten-size cold run followed by its warm runs; prints each run, the table, the
    order and warm summaries and the baseline ratios. Returns the number of runs that failed."""
    names = selected(contenders)
    if not names:
        print(f"workload orders: no contender selected for it (its contenders: {', '.join(CONTENDERS)})")
        return 0
    bench_dir = Path(args.bench_dir)
    sizes = bench.SIZES10
    manifests = write_manifests(bench_dir, sources, sizes)
    print(f"workload orders: {len(sources)} files at {len(sizes)} sizes ({sizes[0]}-{sizes[-1]} px) in "
          f"the orders {', '.join(ORDERS)} (seed {SEED}): {manifests['grouped'].rows} rows each; against "
          f"one size ({ONE_SIZE} px, {manifests['1size'].rows} rows); warm runs after each ten-size run")
    print(f"work folder: {bench_dir} (manifest-order-*.csv, small/, out/, logs/)")
    bench.warm_page_cache(sources)
    bench.print_load("before")
    runs = {name: [] for name in names}
    warms = {name: [] for name in names if kind_of(name) in ORDERS}
    problems = 0
    for round_no in range(1, args.rounds + 1):
        for name in bench.round_order(names, round_no):
            problems += run_contender(bench, args, name, round_no, manifests, sources, logdir, runs, warms)
    bench.print_load("after")
    print()
    print(f"workload orders - input: {len(sources)} files; ten sizes {sizes[0]}-{sizes[-1]} px or one "
          f"of {ONE_SIZE} px, inside, JPEG q{bench.QUALITY}; cold runs; {os.cpu_count()} CPUs")
    bench.print_table(runs, lambda name: bench.expected_outputs(name, "orders", len(sources)))
    for binary in ("thumbgen", "thumbgen-base"):
        print_order_summary(bench, runs, binary)
    print_warm_summary(warms)
    bench.print_baseline_summary("orders", runs)
    print_warm_baseline(bench, warms)
    return problems


def run_contender(bench, args, name, round_no, manifests, sources, logdir, runs, warms):
    """One contender's cold run in a fresh --out and cache, checked, then (ten-size
    contenders) its warm runs. Returns the number of failures (0, 1 or 2)."""
    bench_dir = Path(args.bench_dir)
    manifest = manifests[kind_of(name)]
    outdir = bench_dir / "out" / name
    bench.set_aside(outdir, bench_dir)
    bench.set_aside(Path(f"{outdir}.cache"), bench_dir)
    outdir.mkdir(parents=True)
    run = bench.Run(name, round_no, "orders")
    bench.timed_run(run, [command(bench, args, name, manifest.path, outdir)], logdir)
    check_outputs(bench, run, outdir, sources, bench.SIZES10 if kind_of(name) in ORDERS else (ONE_SIZE,))
    runs[name].append(run)
    expected = manifest.rows
    print(f"orders round {round_no}/{args.rounds} {name:<24} wall {run.wall:6.2f} s  cpu {run.cpu:6.2f} s  "
          f"peak rss {run.rss_max_kib / 1024:6.1f} MiB  tree {run.tree_kib / 1024:6.1f} MiB  "
          f"outputs {run.outputs}/{expected}  exit {','.join(map(str, run.exit_codes))}", flush=True)
    if run.failed or run.strays or run.outputs != expected:
        run.flagged = True
        report_failure(bench, run, logdir, run.strays)
        return 1   # no warm runs over a cold run that went wrong
    if name not in warms:
        return 0
    warm, problems = measure_warm(bench, args, name, round_no, manifest, outdir, logdir)
    warms[name].append(warm)
    print(f"    warm: first {warm.first:.3f} s, warm {warm.warm:.3f} s (cpu {warm.warm_cpu:.2f} s), "
          f"one row {warm.one_row:.3f} s: {describe_rate(warm.rows_per_s)} rows/s beyond start-up"
          f"   (medians of {WARM_REPEATS})", flush=True)
    if problems:
        print(f"bench: error: {name} (round {round_no}): a warm run went wrong", file=sys.stderr, flush=True)
        for line in problems:
            print(f"    {line}", flush=True)
        return 1
    return 0


def print_order_summary(bench, runs, binary):
    """Per order, one build: median wall and CPU, ten-size / one-size per round and median,
    then the spread of the orders' ten-size walls (max / min) per round and median."""
    one = f"{binary}-1size"
    orders = [order for order in ORDERS if f"{binary}-{order}" in runs]
    if one not in runs or not orders:
        return
    print(f"orders [{binary}]: ten sizes / one size ({ONE_SIZE} px) in the same round; "
          f"target <= {TEN_TO_ONE_TARGET}")
    for order in orders:
        name = f"{binary}-{order}"
        walls = bench.per_round_ratios(runs, name, one, "wall")
        cpus = bench.per_round_ratios(runs, name, one, "cpu")
        verdict = "met" if walls and statistics.median(walls) <= TEN_TO_ONE_TARGET else "NOT met"
        print(f"  {order:<10} wall_s {bench.median(runs[name], 'wall'):7.2f}  cpu_s "
              f"{bench.median(runs[name], 'cpu'):7.2f}   wall ten/one {bench.describe_per_round(walls, 2)}: "
              f"{verdict}   cpu ten/one {bench.describe_per_round(cpus, 2)}")
    print(f"  {'one size':<10} wall_s {bench.median(runs[one], 'wall'):7.2f}  cpu_s "
          f"{bench.median(runs[one], 'cpu'):7.2f}")
    if len(orders) < 2:
        return
    walls_by_round = {}
    for order in orders:
        for run in runs[f"{binary}-{order}"]:
            walls_by_round.setdefault(run.round, []).append(run.wall)
    spreads = [max(w) / min(w) for _, w in sorted(walls_by_round.items()) if len(w) == len(orders)]
    medians = [bench.median(runs[f"{binary}-{order}"], "wall") for order in orders]
    if spreads:
        verdict = "met" if statistics.median(spreads) <= SPREAD_TARGET else "NOT met"
        print(f"  spread of the ten-size walls ({', '.join(orders)}; max / min): "
              f"{bench.describe_per_round(spreads, 2)}; of the medians {max(medians) / min(medians):.2f}   "
              f"target <= {SPREAD_TARGET:.2f}: {verdict}")


def describe_rate(rate):
    """A rows/s figure, or what stands for one that could not be measured."""
    return "n/a" if rate is None else f"{rate:,.0f}"


def median_rate(rates):
    """The median of the rates measured (None when none was)."""
    measured = [r for r in rates if r is not None]
    return statistics.median(measured) if measured else None


def print_warm_summary(warms):
    """Per ten-size contender: the medians over the rounds of its warm runs and of rows/s
    beyond start-up, with each round's figure."""
    ran = {name: ws for name, ws in warms.items() if ws}
    if not ran:
        return
    width = max(map(len, ran))
    print(f"warm: rows/s beyond start-up = rows / (warm - one_row), medians of {WARM_REPEATS} runs in a "
          f"round, then over the rounds; target >= {WARM_TARGET:,}")
    print(f"  {'contender':<{width}} {'rows':>6} {'first_s':>8} {'warm_s':>7} {'warm_cpu':>8} "
          f"{'one_row_s':>9} {'rows/s':>9}  per round")
    for name, ws in ran.items():
        rates = [w.rows_per_s for w in ws]
        rate = median_rate(rates)
        if name.startswith("thumbgen-base"):
            verdict = ""
        elif rate is None:
            verdict = "  not measured (warm no longer than one row: more rows, or a quieter machine)"
        else:
            verdict = "  met" if rate >= WARM_TARGET else "  NOT met"
        print(f"  {name:<{width}} {ws[0].rows:>6} {statistics.median(w.first for w in ws):>8.3f} "
              f"{statistics.median(w.warm for w in ws):>7.3f} {statistics.median(w.warm_cpu for w in ws):>8.2f} "
              f"{statistics.median(w.one_row for w in ws):>9.3f} {describe_rate(rate):>9}  "
              f"{' '.join(map(describe_rate, rates))}{verdict}")


def print_warm_baseline(bench, warms):
    """Warm rows/s beyond start-up, this build / the baseline's, per round and median."""
    for mine, base in BASELINE_TWINS.items():
        by_round = {w.round: w.rows_per_s for w in warms.get(base, [])}
        ratios = [w.rows_per_s / by_round[w.round] for w in warms.get(mine, [])
                  if w.rows_per_s and by_round.get(w.round)]
        if ratios:
            print(f"baseline [orders]: warm rows/s {mine} / {base}: {bench.describe_per_round(ratios, 2)}   "
                  f"(above 1 = this build faster)")
