#!/usr/bin/env python3
"""Reproduces the numbers behind the failure causes that report.py records (scripts/sharp-
differential): emulates sharp's own steps with pyvips and compares them with sharp's expected
images and with thumbgen's outputs from the last run.

    investigate.py --sharp DIR [--work DIR]

Run after scripts/sharp-differential/run with the same --sharp and --work; it reads thumbgen's
outputs from the work folder (found by test title in results.json) and writes its own scratch
images to WORK/scratch/. Prints what it finds; exits 0. Python 3 and pyvips only.
"""
import argparse
import json
import os
import sys

import pyvips

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import DEFAULT_WORK, distance, fingerprint  # noqa: E402

pyvips.cache_set_max(0)


def load(p):
    return pyvips.Image.new_from_file(p)


def mean_abs_diff(a, b):
    return (a.cast('int') - b.cast('int')).abs().avg()


def column(im, x, band, rows):
    return [int(im(x, y)[band]) for y in range(rows)]


def main():
    ap = argparse.ArgumentParser(description='Reproduce the investigations of the failures.')
    ap.add_argument('--sharp', required=True, help='a checkout of lovell/sharp')
    ap.add_argument('--work', default=DEFAULT_WORK, help=f'the folder run wrote to (default {DEFAULT_WORK})')
    args = ap.parse_args()
    fix = os.path.join(os.path.abspath(args.sharp), 'test', 'fixtures')
    work = os.path.abspath(args.work)
    tmp = os.path.join(work, 'scratch')
    os.makedirs(tmp, exist_ok=True)
    results = {r['title']: r for r in json.load(open(os.path.join(work, 'results.json')))}

    def out(title):
        """thumbgen's output for the test with this title."""
        r = results[title]
        if 'output' not in r:
            sys.exit(f'investigate.py: no thumbgen output for "{title}" ({r["status"]}: {r.get("detail")})')
        return os.path.join(work, r['output'])

    def F(name):
        return os.path.join(fix, name)

    print('1. fastShrinkOnLoad (centered_image.jpeg 75x105 -> 9x8 cover)')
    exp_path = F('expected/fast-shrink-on-load.png')
    exp_fp, exp = fingerprint(exp_path), load(exp_path)
    outs = {k: load(out(f'Resize dimensions > fastShrinkOnLoad: {v} does not causes image shifts'))
            for k, v in [('thumbgen fast', 'true'), ('thumbgen exact', 'false')]}
    for shrink in [1, 2, 4, 8]:
        im = pyvips.Image.new_from_file(F('centered_image.jpeg'), **({'shrink': shrink} if shrink > 1 else {}))
        r = im.resize(9 / im.width, kernel='lanczos3')
        for top in range(r.height - 8 + 1):
            c = r.crop(0, top, 9, 8)
            p = os.path.join(tmp, f'emu-{shrink}-{top}.png')
            c.pngsave(p)
            line = f'   shrink {shrink} ({im.width}x{im.height} -> {r.width}x{r.height}) crop top {top}: ' \
                   f'distance to expected {distance(exp_fp, fingerprint(p)):2d}, ' \
                   f'mean|diff| expected {mean_abs_diff(c, exp):.2f}'
            for k, o in outs.items():
                line += f', {k} {mean_abs_diff(c, o):.2f}'
            print(line)
    print('   sharp: shrink = min(75/9, 105/8) = 8.33 -> 8, int(8.33) == 8 -> halved to 4; '
          'centre crop top = (13 - 8 + 1) / 2 = 3')

    print('2. trim 16-bit PNG: sharp steps with the libvips here '
          f'({".".join(str(pyvips.version(i)) for i in range(3))})')
    tg = out('Trim borders > 16-bit PNG with alpha channel')
    exp_path = F('expected/trim-16bit-rgba.png')
    src = load(F('tbgn2c16.png'))
    c = src.crop(2, 2, 28, 28)
    r = c.premultiply().resize(32 / 28, kernel='lanczos3').unpremultiply().cast(c.format) \
        .colourspace('srgb', source_space='rgb16')
    emu = os.path.join(tmp, 'trim-emu.png')
    r.pngsave(emu)
    print('   distance emulation->expected', distance(fingerprint(exp_path), fingerprint(emu)),
          ' emulation->thumbgen', distance(fingerprint(tg), fingerprint(emu)))
    print('   green column 16, rows 0-7: expected', column(load(exp_path), 16, 1, 8),
          'emulation', column(load(emu), 16, 1, 8), 'thumbgen', column(load(tg), 16, 1, 8))

    print('3. Flip, rotate and resize ordering: first pixel of Portrait_5 (upright, ICC->sRGB) at 449 wide')
    U = load(F('Portrait_5.jpg')).autorot().icc_transform('srgb', embedded=True, intent='perceptual')
    for hs, vs, what in [(450 / 449, 450 / 449, 'one scale (vips_resize, sharp)'),
                         (450 / 449, 600 / 599, 'per-axis exact ratios')]:
        x = U.reduce(hs, vs, kernel='lanczos3')
        print(f'   {what}: {x.width}x{x.height} {x(0, 0)}')
    print('   thumbgen', load(out('Rotation > Flip, rotate and resize ordering'))(0, 0),
          ' sharp test expects (54, 64, 30)')

    print('4. trim with alpha: colour box vs alpha box (libvips find_trim, threshold 10)')
    for f in ['trim-mc.png', 'image-in-alpha.png']:
        im = load(F(f))
        bg = im(0, 0)
        print(f'   {f}: flattened on top-left colour '
              f'{im.flatten(background=bg[:3]).find_trim(threshold=10, background=bg[:3])}'
              f', alpha band {im[im.bands - 1].find_trim(threshold=10, background=[bg[-1]])}'
              '  (left, top, width, height)')


if __name__ == '__main__':
    main()
