#!/usr/bin/env python3
"""The measuring half of scripts/sharp-differential (run that; it also writes the report).

    run.py --sharp DIR [--thumbgen BIN] [--work DIR] [--no-run]

Runs thumbgen for every sharp test that cases.py maps to a manifest row and checks thumbgen's
output against what the test asserts: the expected image (under sharp's similarity check,
reimplemented below with pyvips), the sizes, channel counts, page counts, output format and
trim offsets; for the extra tests also a byte-size comparison of two rows (sharpen.js) and that
thumbgen refuses an invalid cell.

  --sharp DIR      a checkout of lovell/sharp; its test/unit/*.js and test/fixtures/ are read
                   in place (nothing is copied out of it)
  --thumbgen BIN   the thumbgen binary (default: thumbgen on PATH)
  --work DIR       manifests, thumbgen's outputs and reports, generated inputs, results.json,
                   checks.json, meta.json and mapping.tsv (default /tmp/thumbgen-sharp-differential)
  --no-run         reuse the outputs of the last run in --work

thumbgen runs as one manifest per stage with --jobs 1 (modest CPU); its own output goes to
standard error. Exits 2 when thumbgen cannot be run or exits non-zero, else 0 whatever the
comparisons found. Python 3 and pyvips only.
"""
import argparse
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import OrderedDict

import pyvips

pyvips.cache_set_max(0)  # files are rewritten between runs; never reuse a cached load

from cases import all_cases, make_generated

DEFAULT_WORK = '/tmp/thumbgen-sharp-differential'
SHARP = None      # the sharp checkout (--sharp)
FIX = None        # its test/fixtures
WORK = None       # --work
THUMBGEN = None   # --thumbgen, resolved


class ThumbgenFailed(Exception):
    pass


COLUMNS = ['id', 'src', 'out', 'width', 'height', 'fit', 'gravity', 'crop', 'upscale', 'kernel', 'format',
           'background', 'animated', 'shrink_on_load', 'rotate', 'flip', 'trim', 'sharpen']


def is_mapped(c):
    return c['row'] is not None or bool(c['stages']) or bool(c['pair'])


# --------------------------------------------------------------------------------------------
# sharp's similarity check, reimplemented.
#
# sharp's tests compare two images by a 64-bit fingerprint of each (test/fixtures/index.js):
# the image is made grey, contrast-stretched and shrunk to 9 columns by 8 rows, and each bit
# says whether a pixel is darker than the pixel after it. Two quirks are kept: the pixels are
# read as if the rows were 8 wide (so "the pixel after" wraps into the next row), and the bits
# run column by column. The distance of two images is the number of differing bits; a test
# passes when it is at most its threshold.
#
# The operations are run in the order sharp's pipeline (src/pipeline.cc, v0.35.3) really runs
# them, whatever order the test's chain names them in:
#   * first page only; no auto-orient
#   * shrink-on-load (sharp's fastShrinkOnLoad default): a JPEG is reloaded with shrink 8, 4
#     or 2 (the largest not above the shrink, halved again when the shrink's integer part
#     equals it), a WebP with scale = 1/shrink; shrink = min(w/9, h/8) (fit fill)
#   * an embedded ICC profile -> sRGB ('p3' for 16-bit RGB), perceptual, errors ignored;
#     CMYK without a profile -> through libvips' own CMYK profile
#   * alpha flattened onto BLACK: the test asks for a grey background by a colour name, but
#     sharp only takes a flatten background given as an object, so its default black stays
#     (x256 for 16-bit)
#   * to one-band grey (b-w)
#   * vips_resize to 9x8 with lanczos3, separate horizontal and vertical scales
#   * the normalise step runs AFTER the resize, on the 9x8 image: the L of LAB is stretched
#     between its 1st and 99th percentiles (as integers), only when they differ by more than 1,
#     then back to the previous colourspace
#   * to sRGB (16-bit cast to ushort first), band 0, cast to uchar
# Known differences from sharp: this uses the system libvips through pyvips (8.14.1 where it
# was written), sharp 0.35.3 ships libvips 8.18.3: vips_resize/vips_reduce and the JPEG decoder
# may round differently, which can flip a bit where two neighbouring 9x8 pixels are nearly
# equal. An older libvips may also lack the built-in 'p3' profile (then no transform, as
# sharp's own error handling would do).
# --------------------------------------------------------------------------------------------

def _is16(interp):
    return interp in ('rgb16', 'grey16')


def fingerprint(path):
    im = pyvips.Image.new_from_file(path)  # page 0, n 1
    loader = im.get('vips-loader') if im.get_typeof('vips-loader') else ''
    w, h = im.width, im.height
    hshrink, vshrink = w / 9, h / 8
    shrink = min(hshrink, vshrink)
    if loader.startswith('jpegload'):
        jshrink = 1
        if shrink >= 8:
            jshrink = 8
        elif shrink >= 4:
            jshrink = 4
        elif shrink >= 2:
            jshrink = 2
        if jshrink > 1 and int(shrink) == jshrink:
            jshrink //= 2
        if jshrink > 1:
            im = pyvips.Image.new_from_file(path, shrink=jshrink)
    elif loader.startswith('webpload') and shrink > 1.0:
        im = pyvips.Image.new_from_file(path, scale=1.0 / shrink)
    w, h = im.width, im.height
    hshrink, vshrink = w / 9, h / 8

    interp = im.interpretation
    if im.get_typeof('icc-profile-data') != 0 and interp not in ('labs', 'grey16'):
        try:
            im = im.icc_transform('p3' if interp == 'rgb16' else 'srgb', embedded=True,
                                  depth=16 if _is16(interp) else 8, intent='perceptual')
        except pyvips.Error:
            pass  # sharp: "Invalid embedded profile" warning, carries on
    elif interp == 'cmyk':
        im = im.icc_transform('srgb', input_profile='cmyk', intent='perceptual')

    if im.hasalpha():
        mult = 256.0 if _is16(im.interpretation) else 1.0
        im = im.flatten(background=[0 * mult, 0 * mult, 0 * mult])

    im = im.colourspace('b-w')

    if hshrink != 1.0 or vshrink != 1.0:
        im = im.resize(1.0 / hshrink, vscale=1.0 / vshrink, kernel='lanczos3')

    # normalise(lower=1, upper=99)
    before = im.interpretation
    if before == 'rgb':
        before = 'srgb'
    lab = im.colourspace('lab')
    lum = lab[0]
    lo = int(lum.percent(1))
    hi = int(lum.percent(99))
    if abs(hi - lo) > 1:
        f = 100.0 / (hi - lo)
        a = -(lo * f)
        norm = lum.linear(f, a).bandjoin(lab.extract_band(1, n=2)).colourspace(before)
        if im.hasalpha():
            norm = norm.bandjoin(im[im.bands - 1])
        im = norm

    if _is16(im.interpretation):
        im = im.cast('ushort')
    if im.interpretation != 'srgb':
        im = im.colourspace('srgb', source_space=im.interpretation)
    im = im[0]
    if im.format != 'uchar':
        im = im.cast('uchar')
    data = im.write_to_memory()
    assert len(data) == 72, (path, im.width, im.height, im.bands)
    # bit for (column c, row r): pixel i = 8r + c against pixel i + 1 (8, not 9: the quirk above)
    return ''.join('1' if data[8 * r + c] < data[8 * r + c + 1] else '0'
                   for c in range(8) for r in range(8))


_fp_cache = {}


def fp(path):
    if path not in _fp_cache:
        _fp_cache[path] = fingerprint(path)
    return _fp_cache[path]


def distance(a, b):
    return sum(1 for x, y in zip(a, b) if x != y)


# --------------------------------------------------------------------------------------------

def row_text(row):
    return ';'.join(f'{k}={v}' for k, v in row.items())


def write_mapping(cases, path):
    with open(path, 'w', newline='') as fh:
        w = csv.writer(fh, delimiter='\t', lineterminator='\n')
        w.writerow(['test_file', 'test_title', 'input_fixture', 'expected_fixture', 'kind',
                    'thumbgen_manifest_columns', 'status', 'reason_or_note'])
        for c in cases:
            if c['stages']:
                cols = ' THEN '.join(row_text(r) for r in c['stages'])
            elif c['pair']:
                cols = ' VERSUS '.join(row_text(r) for r in c['pair'])
            elif c['row'] is not None:
                cols = row_text(c['row'])
            else:
                cols = ''
            status = 'mapped' if cols else 'unmapped'
            w.writerow([c['file'], c['title'], c['input'],
                        c['expected'] or {'pixel': '(raw pixel check)', 'larger': '(byte sizes)',
                                          'rejects': '(invalid row)'}.get(c['kind'], '(dims only)'),
                        c['kind'], cols, status, c['unmapped'] or c['note']])


def run_manifest(rows, name):
    """rows: list of (out_stem, src_path, rowdict). Returns {out_stem: report record}."""
    os.makedirs(WORK, exist_ok=True)
    man = os.path.join(WORK, f'{name}.csv')
    with open(man, 'w', newline='') as fh:
        w = csv.DictWriter(fh, fieldnames=COLUMNS, extrasaction='raise')
        w.writeheader()
        for stem, src, row in rows:
            d = {k: '' for k in COLUMNS}
            d.update(row)
            d['src'] = src
            d['out'] = stem + '.{ext}'
            d['id'] = stem  # the report's key (a failed row has no out)
            w.writerow(d)
    report = os.path.join(WORK, f'{name}-report.json')
    cmd = [THUMBGEN, 'render', man, '--out', os.path.join(WORK, 'out'), '--jobs', '1',
           '--no-cache', '--report', report, '--fail-on', 'never', '--placeholders', 'none',
           '--progress', 'never']
    print('+', ' '.join(cmd), file=sys.stderr)
    try:
        # thumbgen's summary line goes to our standard error: standard out is for the table
        rc = subprocess.run(cmd, stdout=sys.stderr).returncode
    except OSError as ex:
        raise ThumbgenFailed(f'cannot run {THUMBGEN}: {ex}')
    if rc != 0:
        raise ThumbgenFailed(f'{THUMBGEN} render exited {rc} on {man}')
    if not os.path.exists(report):
        raise ThumbgenFailed(f'{THUMBGEN} render wrote no report {report}')
    return load_report(report)


def load_report(report):
    recs = json.load(open(report))['rows']
    out = {}
    for r in recs:
        stem = os.path.splitext(os.path.basename(r.get('out') or ''))[0] if r.get('out') else None
        if stem is None and not str(r.get('id', '')).isdigit():
            stem = r.get('id')  # our id column (a failed row has no out)
        if stem is None:
            continue
        out[stem] = r
    return out


def output_path(rec):
    return os.path.join(WORK, 'out', rec['out'])


def check_dims(c, path, problems, label=''):
    im_all = pyvips.Image.new_from_file(path, n=-1) if c['pages'] else pyvips.Image.new_from_file(path)
    w, h = c['dims'] if c['dims'] else (None, None)
    if c['pages']:
        ph = im_all.get('page-height') if im_all.get_typeof('page-height') else im_all.height
        npages = im_all.get('n-pages') if im_all.get_typeof('n-pages') else 1
        got = f'{im_all.width}x{ph} x{npages} pages'
        if w is not None and im_all.width != w:
            problems.append(f'{label}width {im_all.width} != {w}')
        if h is not None and (ph != h or im_all.height != h * c['pages']):
            problems.append(f'{label}height {ph}x{npages} pages (total {im_all.height}) != {h}x{c["pages"]} (total {h * c["pages"]})')
    else:
        got = f'{im_all.width}x{im_all.height}'
        if w is not None and im_all.width != w:
            problems.append(f'{label}width {im_all.width} != {w}')
        if h is not None and im_all.height != h:
            problems.append(f'{label}height {im_all.height} != {h}')
    if c['channels'] is not None and im_all.bands != c['channels']:
        problems.append(f'{label}channels {im_all.bands} != {c["channels"]}')
    return got + f' {im_all.bands}ch'


def evaluate_rejects(c, rec):
    """kind 'rejects': the row must fail as an invalid row naming the column."""
    res = OrderedDict(id=c['id'], file=c['file'], title=c['title'], mapped=True)
    err = (rec or {}).get('error') or {}
    res['thumbgen'] = f"{(rec or {}).get('status')}: {err.get('code')}: {err.get('message')}"
    ok = rec is not None and rec.get('status') == 'failed' and err.get('code') == 'invalid_row' \
        and f"column {c['rejects']}" in (err.get('message') or '')
    res['status'] = 'pass' if ok else 'fail'
    res['detail'] = '' if ok else f"not refused as an invalid {c['rejects']} cell: {res['thumbgen']}"
    return res


def evaluate_larger(c, recs):
    """kind 'larger': both rows written with the asserted size and format, the second one
    (e.g. sharpened) more bytes than the first."""
    res = OrderedDict(id=c['id'], file=c['file'], title=c['title'], mapped=True)
    problems, got, sizes = [], [], []
    for label, rec in zip(['first', 'second'], recs):
        if rec is None or rec.get('status') not in ('written', 'unchanged'):
            res.update(status='error', detail=f'thumbgen row ({label}) failed: {json.dumps(rec)[:300] if rec else "no record"}')
            return res
        got.append(check_dims(c, output_path(rec), problems, label=f'{label} '))
        sizes.append(os.path.getsize(output_path(rec)))
        if c['format'] and rec.get('format') != c['format']:
            problems.append(f"{label} format {rec.get('format')} != {c['format']}")
    res['got_dims'] = ' / '.join(got)
    res['bytes'] = sizes
    if not sizes[1] > sizes[0]:
        problems.append(f'second output {sizes[1]} bytes, not more than the first {sizes[0]}')
    res['status'] = 'pass' if not problems else 'fail'
    res['detail'] = '; '.join(problems)
    return res


def evaluate(c, rec, stage1=None):
    res = OrderedDict(id=c['id'], file=c['file'], title=c['title'], mapped=True)
    problems = []
    if rec is None or rec.get('status') not in ('written', 'unchanged'):
        res.update(status='error', detail=f'thumbgen row failed: {json.dumps(rec)[:300] if rec else "no record"}')
        return res
    path = output_path(rec)
    res['output'] = os.path.relpath(path, WORK)
    if stage1 is not None:
        c1 = dict(c, pages=None, channels=None, dims=(stage1['want'][0], stage1['want'][1]))
        check_dims(c1, output_path(stage1['rec']), problems, label='stage 1 ')
    res['got_dims'] = check_dims(c, path, problems)
    if c.get('format') and rec.get('format') != c['format']:
        problems.append(f"format {rec.get('format')} != {c['format']}")
    if c['kind'] == 'similar':
        exp_path = fixture_path(c['expected'])
        e, a = fp(exp_path), fp(path)
        d = distance(e, a)
        res.update(distance=d, threshold=c['threshold'], fp_expected=e, fp_actual=a)
        if d > c['threshold']:
            problems.append(f'similarity distance {d} > {c["threshold"]}')
    elif c['kind'] == 'pixel':  # raw first pixel
        im = pyvips.Image.new_from_file(path)
        px = [int(v) for v in im(0, 0)[:3]]
        res.update(pixel=px, want_pixel=list(c['pixel']))
        if tuple(px) != tuple(c['pixel']):
            problems.append(f'first pixel {tuple(px)} != {tuple(c["pixel"])} '
                            f'(max abs diff {max(abs(x - y) for x, y in zip(px, c["pixel"]))})')
    crop = rec.get('crop')
    if crop is not None:
        res['report_crop'] = crop
    if c.get('trim_offset'):
        (x0, x1), (y0, y1) = c['trim_offset']
        if crop is None:
            problems.append('no crop in the report to check the trim offsets')
        elif not (x0 <= crop['x'] <= x1 and y0 <= crop['y'] <= y1):
            problems.append(f'trim offset x={crop["x"]},y={crop["y"]} not in x {x0}..{x1}, y {y0}..{y1}')
    res['status'] = 'pass' if not problems else 'fail'
    res['detail'] = '; '.join(problems)
    return res


def fixture_path(name):
    """A case's input or expected name -> its file: generated/... in the work folder, anything
    else in the sharp checkout's test/fixtures/."""
    if name.startswith('generated/'):
        return os.path.join(WORK, name)
    return os.path.join(FIX, name)


def version_lines(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        return out.stdout.strip() if out.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        return None


def sharp_meta():
    """What the report says about the sharp checkout: commit (when it is a git work tree),
    version and libvips requirement (when package.json is there)."""
    meta = OrderedDict(dir=SHARP, commit=version_lines(['git', '-C', SHARP, 'rev-parse', 'HEAD']),
                       version=None, libvips=None)
    pj = os.path.join(SHARP, 'package.json')
    if os.path.exists(pj):
        try:
            d = json.load(open(pj))
            meta['version'] = d.get('version')
            meta['libvips'] = (d.get('config') or {}).get('libvips')
        except ValueError:
            pass
    return meta


def negative_control(cases, results):
    """How far each mapped rotate/flip output of rotate.js is from the expected images of the
    *other* transforms of the same input (rotate180 and flip&flop are the same image, so that
    pair is left out): if these minima are well above the threshold, the check can tell a wrong
    angle or flip direction apart. Two minima: against the other rotate/flip transforms
    ('transforms') and against the plain auto-oriented expected image ('untransformed')."""
    pat = re.compile(r'^expected/((?:Landscape|Portrait)_\d)(?:_(rotate90|rotate180|rotate270|flip|flop|flip_flop))?-out\.jpg$')
    same = {frozenset(['rotate180', 'flip_flop'])}
    by_input = {}
    for c in cases:
        m = pat.match(c['expected'] or '')
        if m:
            by_input.setdefault(m.group(1), {})[m.group(2) or 'none'] = c['expected']
    res = {r['id']: r for r in results}
    lowest = OrderedDict(transforms=None, untransformed=None)
    for c in cases:
        m = pat.match(c['expected'] or '')
        r = res.get(c['id'])
        if not m or not r or 'fp_actual' not in r:
            continue
        mine = m.group(2) or 'none'
        if mine == 'none':
            continue  # plain auto-orient outputs: not a rotate/flip output
        for other, exp in by_input[m.group(1)].items():
            if other == mine or frozenset([mine, other]) in same:
                continue
            d = distance(r['fp_actual'], fp(fixture_path(exp)))
            key = 'untransformed' if other == 'none' else 'transforms'
            if lowest[key] is None or d < lowest[key]['distance']:
                lowest[key] = OrderedDict(distance=d, title=c['title'], other_expected=exp)
    return lowest


def fixture_baseline():
    """Distance of sharp's own Landscape_N-out.jpg / Portrait_N-out.jpg expected images from
    the upright Landscape_1.jpg / Portrait_1.jpg inputs: the margin the fixtures bring."""
    out = OrderedDict()
    for o in ['Landscape', 'Portrait']:
        base = fp(fixture_path(f'{o}_1.jpg'))
        ds = [distance(base, fp(fixture_path(f'expected/{o}_{n}-out.jpg'))) for n in range(1, 9)]
        out[o] = [min(ds), max(ds)]
    return out


def main():
    global SHARP, FIX, WORK, THUMBGEN
    ap = argparse.ArgumentParser(description='Run thumbgen on the sharp tests mapped in cases.py '
                                 'and compare with their expected images.')
    ap.add_argument('--sharp', required=True, help='a checkout of lovell/sharp')
    ap.add_argument('--thumbgen', default='thumbgen', help='thumbgen binary (default: thumbgen on PATH)')
    ap.add_argument('--work', default=DEFAULT_WORK, help=f'outputs and results (default {DEFAULT_WORK})')
    ap.add_argument('--no-run', action='store_true', help='reuse the outputs of the last run in --work')
    args = ap.parse_args()

    SHARP = os.path.abspath(args.sharp)
    FIX = os.path.join(SHARP, 'test', 'fixtures')
    WORK = os.path.abspath(args.work)
    for need in [os.path.join(SHARP, 'test', 'unit', 'resize-contain.js'), os.path.join(FIX, 'expected')]:
        if not os.path.exists(need):
            sys.exit(f'run.py: {need} is missing: --sharp must be a checkout of lovell/sharp')
    THUMBGEN = shutil.which(args.thumbgen) if os.sep not in args.thumbgen else os.path.abspath(args.thumbgen)
    if not args.no_run and (THUMBGEN is None or not os.access(THUMBGEN, os.X_OK)):
        print(f'run.py: cannot find an executable thumbgen ({args.thumbgen})', file=sys.stderr)
        sys.exit(2)
    os.makedirs(WORK, exist_ok=True)

    started = time.time()
    make_generated(os.path.join(WORK, 'generated'))
    cases = all_cases(SHARP)
    missing = sorted({n for c in cases if is_mapped(c)
                      for n in [c['input'], c['expected']] if n and not os.path.exists(fixture_path(n))})
    if missing:
        sys.exit('run.py: fixtures missing from the sharp checkout: ' + ', '.join(missing))
    write_mapping(cases, os.path.join(WORK, 'mapping.tsv'))
    rel = lambda p: os.path.relpath(fixture_path(p), WORK)

    stage1_rows, single_rows = [], []
    for c in cases:
        if c['stages']:
            stage1_rows.append((c['id'] + '-s1', rel(c['input']), c['stages'][0]))
        elif c['pair']:
            for k, row in zip('ab', c['pair']):
                single_rows.append((f"{c['id']}-{k}", rel(c['input']), row))
        elif c['row'] is not None:
            single_rows.append((c['id'], rel(c['input']), c['row']))
        if c.get('control'):
            single_rows.append((c['id'] + '-control', rel(c['input']), c['control']))
    try:
        if args.no_run:
            rep = load_report(os.path.join(WORK, 'main-report.json'))
            rep2 = load_report(os.path.join(WORK, 'stage2-report.json'))
        else:
            rep = run_manifest(single_rows + stage1_rows, 'main')
            s2 = []
            for c in cases:
                if c['stages']:
                    r1 = rep.get(c['id'] + '-s1')
                    if r1 and r1.get('status') in ('written', 'unchanged'):
                        s2.append((c['id'], os.path.relpath(output_path(r1), WORK), c['stages'][1]))
            rep2 = run_manifest(s2, 'stage2') if s2 else {}
    except ThumbgenFailed as ex:
        print(f'run.py: {ex}', file=sys.stderr)
        sys.exit(2)

    results = []
    for c in cases:
        if not is_mapped(c):
            results.append(OrderedDict(id=c['id'], file=c['file'], title=c['title'], mapped=False,
                                       status='unmapped', detail=c['unmapped']))
            continue
        try:
            if c['stages']:
                s1 = rep.get(c['id'] + '-s1')
                want1 = (int(c['stages'][0]['width']), int(c['stages'][0]['height']))
                r = evaluate(c, rep2.get(c['id']), stage1=dict(rec=s1, want=want1))
            elif c['pair']:
                r = evaluate_larger(c, [rep.get(c['id'] + '-a'), rep.get(c['id'] + '-b')])
            elif c['kind'] == 'rejects':
                r = evaluate_rejects(c, rep.get(c['id']))
            else:
                r = evaluate(c, rep.get(c['id']))
        except Exception as ex:  # report, do not stop
            r = OrderedDict(id=c['id'], file=c['file'], title=c['title'], mapped=True,
                            status='error', detail=f'{type(ex).__name__}: {ex}')
        ctl = rep.get(c['id'] + '-control') if c.get('control') else None
        if ctl and ctl.get('status') in ('written', 'unchanged') and c['expected']:
            r['control_distance'] = distance(fp(fixture_path(c['expected'])), fp(output_path(ctl)))
        r['note'] = c['note']
        r['kind'] = c['kind']
        results.append(r)

    with open(os.path.join(WORK, 'results.json'), 'w') as fh:
        json.dump(results, fh, indent=1)
    checks = OrderedDict(negative_control=negative_control(cases, results),
                         fixture_baseline=fixture_baseline())
    with open(os.path.join(WORK, 'checks.json'), 'w') as fh:
        json.dump(checks, fh, indent=1)
    tg = OrderedDict(path=THUMBGEN, version=version_lines([THUMBGEN, '--version']) if THUMBGEN else None)
    meta_path = os.path.join(WORK, 'meta.json')
    if args.no_run and os.path.exists(meta_path):
        try:  # the outputs are the last run's: so is the thumbgen that made them
            tg = json.load(open(meta_path), object_pairs_hook=OrderedDict)['thumbgen']
        except (ValueError, KeyError):
            pass
    meta = OrderedDict(
        sharp=sharp_meta(),
        thumbgen=tg,
        pyvips=OrderedDict(version=pyvips.__version__,
                           libvips='.'.join(str(pyvips.version(i)) for i in range(3))),
        reused_last_run=args.no_run,
        seconds=round(time.time() - started, 1))
    with open(meta_path, 'w') as fh:
        json.dump(meta, fh, indent=1)


if __name__ == '__main__':
    main()
