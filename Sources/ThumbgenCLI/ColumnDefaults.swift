import ArgumentParser
import Foundation
import Thumbgen

/// Flags that give a default to a manifest column; a row's own value wins over them.
struct ColumnDefaults: ParsableArguments {
    @Option(help: "Default target box, as WxH, W or xH in pixels (column `size`). For folders, globs and image files, a comma-separated list (320,640,1280) makes a row per size.")
    var size: String?

    @Option(help: "For folders, globs and image files with one --size: pixel densities, such as 1,2 for avatars and cards at a fixed CSS size; a row per density at that multiple of the size, and the --index's srcsets in x descriptors.")
    var density: String?

    @Option(help: "Default target width in pixels (column `width`).")
    var width: Int?

    @Option(help: "Default target height in pixels (column `height`).")
    var height: Int?

    @Option(help: "Default fit: inside, cover, contain, fill, none or outside (column `fit`).")
    var fit: String?

    @Option(help: "Default gravity for cropping and padding, such as center or top-left (column `gravity`).")
    var gravity: String?

    @Option(help: "Default crop before scaling, as x,y,w,h fractions of the source (column `crop`).")
    var crop: String?

    @Option(help: "Default focal point: x,y fractions of the image, such as 0.5,0.3, or auto (the file's own: an IPTC image region whose role is main subject or cropping, else EXIF SubjectArea; the gravity where it has none); cover and none centre their crop on it (column `focus`).")
    var focus: String?

    @Option(help: "Default turn after the EXIF orientation: 0, 90, 180 or 270 degrees clockwise (column `rotate`).")
    var rotate: String?

    @Option(help: "Default mirror after the rotation: h (left to right), v (top to bottom), h,v or none (column `flip`).")
    var flip: String?

    @Option(name: [.customLong("colour"), .customLong("color")],
            help: "Default colour of the pixels written: srgb (converted through the source's profile, untagged; the default), keep (the source's own RGB or grey profile, embedded; sources without one stay sRGB) or p3 (converted to Display P3, with a compact P3 profile embedded) (column `colour`).")
    var colour: String?

    @Option(help: "Default metadata kept from the source: none (the default), or a list of icc (embed the output's profile), copyright (EXIF Artist and Copyright, XMP and IPTC rights and credit) and exif (EXIF without GPS, thumbnail or orientation) (column `keep`).")
    var keep: String?

    @Option(help: "Default trim: cut borders within this distance (1-255; true: 10) of the top-left pixel's colour before anything else, as sharp's trim (column `trim`).")
    var trim: String?

    @Option(help: "Default sharpening after the resize: auto (sharp's mild sharpen, where the output is at most half its source's size), a sigma from 0.3 to 10 (an unsharp mask), or none (column `sharpen`).")
    var sharpen: String?

    @Option(help: "Default page or image of a multi-page source (PDF, TIFF, HEIF), counted from 1 (column `page`).")
    var page: String?

    @Flag(help: "Let sources smaller than the box grow (column `upscale`).")
    var upscale = false

    @Flag(help: "Keep every frame of animated GIF and WebP sources when the output is GIF or WebP (column `animated`).")
    var animated = false

    @Option(help: "Default resampling kernel: nearest, linear, cubic, mitchell, lanczos2 or lanczos3 (column `kernel`).")
    var kernel: String?

    @Option(help: "Default output format: auto, jpeg, png, webp, avif, jxl, gif or tiff (column `format`). For folders, globs and image files, a comma-separated list (webp,jpeg) makes a row per format.")
    var format: String?

    @Option(help: "Default output path under --out, with placeholders such as {dir}, {name}, {w}, {h} and {ext} (column `out`; default {name}-{w}x{h}.{ext}, or {dir}/{name}-{w}x{h}.{ext} for a walked folder).")
    var outTemplate: String?

    @Option(help: "Default quality from 1 to 100, for every format or per format: 80, or webp=75,avif=50,jpeg=80, or 80,avif=50 (column `quality`, same forms); a format not named keeps its own default.")
    var quality: String?

    @Option(help: "Default most bytes an output may have, such as 150K (column `max_output_bytes`): a JPEG, WebP, AVIF or JPEG XL is encoded again at lower qualities until it fits, no lower than --min-quality; a row that cannot fit fails with over_budget.")
    var maxOutputBytes: String?

    @Option(help: "Default background, #rrggbb or #rrggbbaa, for padding and flattening (column `background`).")
    var background: String?

    @Option(help: "Default priority: very-low, low, normal, high or very-high (column `priority`).")
    var priority: String?

    @Option(help: "Default for how far JPEG sources shrink while they decode (column `shrink_on_load`): exact (leave the kernel a factor of two, as vipsthumbnail), balanced (the default: also halve with no headroom) or fast (no headroom at all, as sharp's fastShrinkOnLoad; can alias on fine texture).")
    var shrinkOnLoad: String?

    /// The `--size` list's items (one for a plain size); with `--density`, the one size at each
    /// density.
    var sizes: [String] {
        let items = Self.items(size)
        guard let densities, items.count == 1, let box = TargetBox(parsing: items[0]) else { return items }
        return densities.map { density in
            TargetBox(width: box.width.map { Int((Double($0) * density).rounded()) },
                      height: box.height.map { Int((Double($0) * density).rounded()) }).description
        }
    }

    /// The `--density` list, in the order given; nil without one (or with an item that is not
    /// a number from 0.5 to 8, which `validate` refuses).
    var densities: [Double]? {
        guard let density else { return nil }
        let values = Self.items(density).map { Double($0) }
        guard !values.isEmpty, values.allSatisfy({ $0.map { (0.5...8).contains($0) } ?? false }) else { return nil }
        return values.compactMap { $0 }
    }

    /// The `--format` list's items (one for a plain format).
    var formats: [String] { Self.items(format) }

    /// Refuses lists for a manifest, whose rows each have one size and one format.
    func checkSingleValues() throws {
        if density != nil {
            throw ValidationError("--density makes a row per density from one --size, for folders, globs and image files; a manifest row gives its own size")
        }
        for (flag, items) in [("--size", sizes), ("--format", formats)] where items.count > 1 {
            throw ValidationError("\(flag) lists \(items.count) values, but a manifest row has one; give folders, globs or image files (or run `thumbgen manifest`) to make a row for each")
        }
    }

    /// The defaults as the text a manifest cell would hold, by column (a list of several
    /// sizes or formats is not a default: `TreeManifest` makes a row for each).
    var values: [ManifestColumn: String] {
        var values: [ManifestColumn: String] = [:]
        values[.size] = sizes.count == 1 ? sizes[0] : nil
        values[.out] = outTemplate
        values[.width] = width.map(String.init)
        values[.height] = height.map(String.init)
        values[.fit] = fit
        values[.gravity] = gravity
        values[.crop] = crop
        values[.focus] = focus
        values[.rotate] = rotate
        values[.flip] = flip
        values[.sharpen] = sharpen
        values[.trim] = trim
        values[.colour] = colour
        values[.keep] = keep
        values[.page] = page
        values[.upscale] = upscale ? "true" : nil
        values[.animated] = animated ? "true" : nil
        values[.kernel] = kernel
        values[.format] = formats.count == 1 ? formats[0] : nil
        values[.quality] = quality
        values[.maxOutputBytes] = maxOutputBytes
        values[.background] = background
        values[.priority] = priority
        values[.shrinkOnLoad] = shrinkOnLoad
        return values
    }

    /// Rejects a bad default before any work (each item of a list), naming the flag and what
    /// it accepts.
    func validate() throws {
        if let density {
            guard let values = densities else {
                throw ValidationError("--density '\(density)' must list numbers from 0.5 to 8, such as 1,2")
            }
            guard Self.items(size).count == 1, TargetBox(parsing: Self.items(size)[0]) != nil else {
                throw ValidationError("--density needs one --size, the box at density 1 (such as 64x64): x descriptors describe one display size; for several widths give --size 320,640,1280 without --density (w descriptors)")
            }
            guard Set(values).count == values.count else { throw ValidationError("--density '\(density)' repeats a density") }
        }
        let probes = [values] + sizes.map { [.size: $0] } + formats.map { [.format: $0] }
        for defaults in probes {
            let probe = ManifestRecord(line: 0, values: [.src: "probe.jpg"])
            if case .failure(let error) = RowParser(defaults: defaults, baseDirectory: "/").parse(probe) {
                let flag = error.column.map { $0 == "out" ? "--out-template" : "--" + $0.replacingOccurrences(of: "_", with: "-") } ?? "a default"
                throw ValidationError("\(flag) \(error.value.map { "'\($0)' " } ?? "")\(error.reason)")
            }
        }
    }

    /// The comma-separated items of `list`, trimmed, empty ones dropped.
    private static func items(_ list: String?) -> [String] {
        (list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
