#!/usr/bin/env python3
"""The --mutate mode of scripts/fuzz (run that): thumbgen over files mutated with zzuf.

    scripts/fuzz --mutate [--files N] [--batch B] [--seed S] [--ratio R]
                          [--enable-loader NAME ...] [--seeds DIR ...] [--ext EXT ...]
                          [--sizes W,...] [--timeout S] [--run-timeout S] [--thumbgen BIN]

Takes the seed files (under 200 KB, any format; text files left out) from ../shared/corpora
(or --seeds; --ext keeps only some extensions), shuffled by --seed, and cycles through them:
file i is seed i mod n mutated by `zzuf -s S+i -r R` (R a share of bits, or a range MIN:MAX
zzuf draws from per seed). Every B files make a batch: a folder .build/fuzz/mutate/batch/, a
manifest (src, size 64, out NNNNNN-64.jpg; a row per size with --sizes, so that a source's
rows share its decode as a static site's do), and one release thumbgen run over it with --no-cache
--timeout S --report, in a session of its own so that it and its workers are killed together
after --run-timeout seconds.

Counted over all batches: parent crashes (thumbgen's exit status other than 0 or 1, or death
by a signal), runs that did not end (killed at --run-timeout), runs without a complete report,
and worker processes still running 2 s after their parent ended; all four must be 0, and the
exit status is 1 otherwise. Also the rows per status and error code. A source whose worker
crashed (`crashed`) or hung (`timeout`) is kept as .build/fuzz/mutate/findings/<code>/<seed
folder>__<seed path, / as __>.s<zzuf seed>.<ext>, listed in findings/index.tsv with the zzuf
command that remakes it; the batch of a failed run is kept whole as findings/batch-s<S>-<n>/.

Standard library only; needs zzuf (installed with scripts/setup when missing).
"""

import argparse
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / ".build/fuzz/mutate"
FINDINGS = WORK / "findings"
# Files in the corpora that are not images: licences, read-mes, catalogues, checksums, scripts.
TEXT_SUFFIXES = {".txt", ".tsv", ".md", ".markdown", ".sh", ".md5", ".json", ".py", ".html",
                 ".c", ".h", ".icc", ".scan", ".ijg"}
TEXT_STEMS = ("LICENSE", "LICENCE", "README", "COPYING", "AUTHORS", "NOTICE")


@dataclass
class Mutant:
    path: Path      # the mutated file in the batch folder
    seed: Path      # the file it was made from
    label: str      # the seed's path under its seeds folder, with / as __
    zzuf_seed: int
    ratio: str      # zzuf's -r


def main():
    args = parse_arguments()
    seeds = find_seeds(args)
    if not seeds:
        where = ", ".join(str(d) for d in args.seeds)
        print(f"fuzz: no seed files in {where} (absent or empty); nothing to mutate", file=sys.stderr)
        return 0
    ensure_zzuf()
    thumbgen = args.thumbgen or build_thumbgen()
    preflight(thumbgen, args, seeds[0][0])

    random.Random(args.seed).shuffle(seeds)
    shutil.rmtree(WORK / "batch", ignore_errors=True)
    FINDINGS.mkdir(parents=True, exist_ok=True)
    tally = Tally()
    started = time.monotonic()
    batches = (args.files + args.batch - 1) // args.batch
    for number in range(batches):
        first = number * args.batch
        count = min(args.batch, args.files - first)
        run_batch(thumbgen, args, seeds, number, first, count, tally)
        print(f"fuzz: batch {number + 1}/{batches} done, {first + count} files, "
              f"{time.monotonic() - started:.0f} s; so far {tally.line()}", file=sys.stderr, flush=True)
    print_tables(args, tally, len(seeds), batches, time.monotonic() - started)
    return 1 if tally.failed_runs() else 0


def parse_arguments():
    parser = argparse.ArgumentParser(prog="scripts/fuzz --mutate",
                                     description="Runs thumbgen over files mutated with zzuf.")
    parser.add_argument("--mutate", action="store_true", help="this mode (scripts/fuzz passes it on)")
    parser.add_argument("--files", type=int, default=2000, help="mutated files in all (default 2000)")
    parser.add_argument("--batch", type=int, default=500, help="files per thumbgen run (default 500)")
    parser.add_argument("--seed", type=int, default=1,
                        help="first zzuf seed, also shuffles the seed files (default 1)")
    parser.add_argument("--ratio", default="0.0001:0.01",
                        help="zzuf's -r: the share of bits flipped, or a range MIN:MAX (default 0.0001:0.01)")
    parser.add_argument("--enable-loader", action="append", default=[], metavar="NAME",
                        help="passed to thumbgen (repeatable)")
    parser.add_argument("--seeds", action="append", type=Path, metavar="DIR",
                        help="folder of seed files (repeatable; default ../shared/corpora)")
    parser.add_argument("--ext", action="append", default=[], metavar="EXT",
                        help="only seed files with this extension, e.g. jp2 (repeatable)")
    parser.add_argument("--max-seed-bytes", type=int, default=200 * 1024,
                        help="largest seed file taken (default 204800)")
    parser.add_argument("--sizes", type=lambda text: tuple(int(w) for w in text.split(",")), default=(64,),
                        metavar="W,...", help="a row per width for each file (default 64)")
    parser.add_argument("--timeout", type=float, default=10, help="thumbgen's --timeout (default 10)")
    parser.add_argument("--run-timeout", type=float, default=300,
                        help="seconds after which a thumbgen run counts as not ending and is killed (default 300)")
    parser.add_argument("--thumbgen", type=Path, help="the binary to run (default: build the release one)")
    args = parser.parse_args()
    if args.files < 1 or args.batch < 1:
        parser.error("--files and --batch must be at least 1")
    args.seeds = args.seeds or [ROOT.parent / "shared/corpora"]
    args.ext = {("." + e.lstrip(".")).lower() for e in args.ext}
    return args


def find_seeds(args):
    """(path, label) of every seed file, sorted by label."""
    seeds = []
    for folder in args.seeds:
        if not folder.is_dir():
            continue
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or path.is_symlink():
                continue
            suffix = path.suffix.lower()
            if suffix in TEXT_SUFFIXES or path.name.startswith(TEXT_STEMS) or path.name.startswith("_"):
                continue
            if args.ext and suffix not in args.ext:
                continue
            size = path.stat().st_size
            if 0 < size <= args.max_seed_bytes:
                label = f"{folder.name}/{path.relative_to(folder)}".replace("/", "__")
                seeds.append((path, label))
    return sorted(seeds, key=lambda s: s[1])


def ensure_zzuf():
    if shutil.which("zzuf"):
        return
    print("fuzz: zzuf is missing; installing it with scripts/setup", file=sys.stderr)
    subprocess.run([str(ROOT / "scripts/setup"), "zzuf"], check=True)
    if not shutil.which("zzuf"):
        sys.exit("fuzz: zzuf is still not on PATH after scripts/setup")


def build_thumbgen():
    build = ["swift", "build", "-c", "release"]
    done = subprocess.run(build + ["-q", "--product", "thumbgen"], cwd=ROOT)
    if done.returncode != 0:
        sys.exit("fuzz: swift build -c release --product thumbgen failed")
    bin_path = subprocess.run(build + ["--show-bin-path"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    return Path(bin_path) / "thumbgen"


def thumbgen_command(thumbgen, args, manifest, out, report):
    command = [str(thumbgen), str(manifest), "--out", str(out), "--no-cache",
               "--timeout", f"{args.timeout:g}", "--report", str(report), "--progress", "never"]
    for loader in args.enable_loader:
        command += ["--enable-loader", loader]
    return command


def preflight(thumbgen, args, seed):
    """Stops before any mutation when thumbgen refuses the command line (a bad loader name)."""
    folder = WORK / "preflight"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    manifest = write_manifest(folder, [seed])
    command = thumbgen_command(thumbgen, args, manifest, folder / "out", folder / "report.json")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=args.run_timeout)
    except subprocess.TimeoutExpired:
        sys.exit(f"fuzz: thumbgen did not end in {args.run_timeout:g} s on one unmutated seed ({seed})")
    if done.returncode not in (0, 1):
        sys.exit(f"fuzz: thumbgen exits {done.returncode} on one unmutated seed ({seed}):\n{done.stderr}")
    shutil.rmtree(folder)


def write_manifest(folder, sources, sizes=(64,)):
    manifest = folder / "manifest.csv"
    with open(manifest, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["src", "size", "out"])
        for index, src in enumerate(sources):
            for size in sizes:
                writer.writerow([str(src), size, f"{index:06d}-{size}.jpg"])
    return manifest


def mutate(args, seeds, folder, first, count):
    mutants = []
    for index in range(first, first + count):
        seed, label = seeds[index % len(seeds)]
        zzuf_seed = args.seed + index
        path = folder / f"{index:06d}{seed.suffix}"  # the extension is kept: ImageMagick looks at it
        with open(seed, "rb") as source, open(path, "wb") as target:
            subprocess.run(["zzuf", "-s", str(zzuf_seed), "-r", args.ratio], stdin=source, stdout=target,
                           check=True)
        mutants.append(Mutant(path, seed, label, zzuf_seed, args.ratio))
    return mutants


class Tally:
    """What all batches came to."""

    def __init__(self):
        self.files = 0
        self.parent_crashes = []   # (batch folder kept, exit status or signal, stderr tail)
        self.not_ended = []        # batch folders kept
        self.bad_reports = []      # (batch, what was wrong)
        self.stray_workers = 0
        self.rows = Counter()      # (status, code) -> rows
        self.findings = []         # (code, kept file, Mutant, message)

    def failed_runs(self):
        return len(self.parent_crashes) + len(self.not_ended) + len(self.bad_reports) + self.stray_workers

    def line(self):
        written = self.rows[("written", "")]
        crashed = self.rows[("failed", "crashed")]
        return (f"{written} written, {crashed} worker crashes, {len(self.parent_crashes)} parent crashes, "
                f"{len(self.not_ended)} runs not ended")


def run_batch(thumbgen, args, seeds, number, first, count, tally):
    folder = WORK / "batch"
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "src").mkdir(parents=True)
    mutants = mutate(args, seeds, folder / "src", first, count)
    tally.files += count
    manifest = write_manifest(folder, [m.path for m in mutants], args.sizes)
    report = folder / "report.json"
    stderr_path = folder / "stderr.txt"
    command = thumbgen_command(thumbgen, args, manifest, folder / "out", report)
    with open(stderr_path, "wb") as stderr:
        # Its own session, so that the run and its workers can be killed, and counted, together.
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=stderr, start_new_session=True)
        try:
            status = process.wait(timeout=args.run_timeout)
        except subprocess.TimeoutExpired:
            status = None
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    strays = end_session(process.pid)
    if status is not None:  # after a kill, the workers were ours to end, not the parent's
        tally.stray_workers += strays
    batch_name = f"batch-s{args.seed}-{number + 1:03d}"

    if status is None:
        tally.not_ended.append(keep_batch(folder, batch_name))
    elif status not in (0, 1):
        cause = f"signal {signal.Signals(-status).name}" if status < 0 else f"exit status {status}"
        tail = stderr_path.read_text(errors="replace")[-2000:]
        tally.parent_crashes.append((keep_batch(folder, batch_name), cause, tail))
    else:
        count_rows(report, mutants, len(args.sizes), batch_name, folder, tally)
    shutil.rmtree(folder, ignore_errors=True)


def end_session(session, grace=2.0):
    """Waits up to GRACE seconds for SESSION to empty, then kills what is left and says how many."""
    deadline = time.monotonic() + grace
    while (left := session_members(session)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(left)


def session_members(session):
    """The live (not zombie) processes of SESSION."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] != "Z":  # fields[3] is the session id
            members.append(int(entry.name))
    return members


def keep_batch(folder, name):
    kept = FINDINGS / name
    shutil.rmtree(kept, ignore_errors=True)
    shutil.copytree(folder, kept, ignore=shutil.ignore_patterns("out"))
    return kept


def count_rows(report, mutants, rows_each, batch_name, folder, tally):
    try:
        rows = json.loads(report.read_text())["rows"]
    except (OSError, ValueError, KeyError) as error:
        tally.bad_reports.append((keep_batch(folder, batch_name), f"no readable report: {error}"))
        return
    if len(rows) != len(mutants) * rows_each:
        tally.bad_reports.append((keep_batch(folder, batch_name),
                                  f"{len(rows)} rows reported of {len(mutants) * rows_each}"))
    by_path = {str(m.path): m for m in mutants}
    for row in rows:
        code = row.get("error", {}).get("code", "")
        tally.rows[(row.get("status", "?"), code)] += 1
        if code in ("crashed", "timeout") and row.get("src") in by_path:
            mutant = by_path[row["src"]]
            # The batch folder goes; the message names the kept file instead.
            message = row["error"].get("message", "").removeprefix(f"{mutant.path}: ")
            kept = keep_finding(code, mutant, message)
            tally.findings.append((code, kept, mutant, message))


def keep_finding(code, mutant, message):
    stem, suffix = os.path.splitext(mutant.label)
    kept = FINDINGS / code / f"{stem}.s{mutant.zzuf_seed}{suffix}"
    kept.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(mutant.path, kept)
    index = FINDINGS / "index.tsv"
    new = not index.exists()
    with open(index, "a") as f:
        if new:
            f.write("file\tcode\tmessage\tremake\n")
        remake = f"zzuf -s {mutant.zzuf_seed} -r {mutant.ratio} < {mutant.seed} > {kept.name}"
        f.write(f"{kept.relative_to(FINDINGS)}\t{code}\t{' '.join(message.split())}\t{remake}\n")
    return kept


def loader_of(path):
    """The loader vipsheader (every loader on) picks for PATH, or how it failed."""
    try:
        done = subprocess.run(["vipsheader", "-f", "vips-loader", str(path)], capture_output=True,
                              text=True, timeout=20)
    except subprocess.TimeoutExpired:
        return "vipsheader hung"
    except FileNotFoundError:
        return "?"
    if done.returncode < 0:
        return f"vipsheader died of {signal.Signals(-done.returncode).name}"
    if done.returncode != 0:
        return "vipsheader: not an image"
    return done.stdout.strip()


def print_tables(args, tally, seed_count, batches, seconds):
    loaders = " ".join(f"--enable-loader {l}" for l in args.enable_loader) or "default loaders"
    print(f"\n### scripts/fuzz --mutate: seed {args.seed}, ratio {args.ratio}, {loaders}\n")
    print("| measure | count |\n|---|---|")
    for name, value in [("seed files", seed_count), ("files mutated", tally.files), ("batches", batches),
                        ("parent crashes (must be 0)", len(tally.parent_crashes)),
                        ("runs that did not end (must be 0)", len(tally.not_ended)),
                        ("runs without a complete report (must be 0)", len(tally.bad_reports)),
                        ("workers left running after their parent (must be 0)", tally.stray_workers),
                        ("seconds", f"{seconds:.0f}")]:
        print(f"| {name} | {value} |")

    print("\n| status | code | rows |\n|---|---|---|")
    for (status, code), rows in sorted(tally.rows.items(), key=lambda item: -item[1]):
        print(f"| {status} | {code or '-'} | {rows} |")

    for code, title in (("crashed", "Worker crashes"), ("timeout", "Worker timeouts")):
        found = [f for f in tally.findings if f[0] == code]
        print(f"\n{title}: {len(found)}")
        if found:
            print("\n| file (under .build/fuzz/mutate/findings/) | loader | message |\n|---|---|---|")
            for _, kept, mutant, message in found:
                text = " ".join(message.split()).replace("|", "\\|")
                loader = loader_of(kept)
                if loader.startswith("vipsheader"):
                    loader += f" (seed: {loader_of(mutant.seed)})"
                print(f"| {kept.relative_to(FINDINGS)} | {loader} | {text} |")

    for kept, cause, tail in tally.parent_crashes:
        print(f"\nParent crash ({cause}), batch kept in {kept.relative_to(ROOT)}; its stderr ends:\n")
        print("```\n" + tail.strip() + "\n```")
    for kept in tally.not_ended:
        print(f"\nRun did not end in {args.run_timeout:g} s, batch kept in {kept.relative_to(ROOT)}")
    for kept, what in tally.bad_reports:
        print(f"\nBad report ({what}), batch kept in {kept.relative_to(ROOT)}")


if __name__ == "__main__":
    sys.exit(main())
