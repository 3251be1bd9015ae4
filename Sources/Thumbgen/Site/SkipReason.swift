/// Why `thumbgen site` left an `<img>` as it was. None of these is a failure: the run still
/// exits 0 when they are all it met.
public enum SkipReason: String, Error, Sendable, CaseIterable, Comparable {
    /// No `src`, or an empty one.
    case noSource = "no_src"
    /// A `data:` or `blob:` URL.
    case dataURL = "data_url"
    /// Another site's image (a URL with a scheme or a host).
    case external
    /// The file is not in the site (a path that climbs out of it, or a link leading out).
    case outsideSite = "outside_site"
    /// No file at that path in the site.
    case notFound = "not_found"
    /// An SVG: already resolution-independent.
    case svg
    /// Not an image thumbgen reads.
    case notImage = "not_image"
    /// More than one frame (a GIF or WebP animation).
    case animated
    /// Narrower than `--min-width`: an icon or a badge.
    case small
    /// Inside another `<picture>`, whose sources the author chose.
    case inPicture = "in_picture"
    /// It has a `srcset` of its own.
    case hasSrcset = "has_srcset"
    /// Marked `data-thumbgen="skip"`.
    case markedSkip = "marked_skip"
    /// Inside a `<template>`.
    case inTemplate = "in_template"
    /// Another site's image that `--fetch` could not download.
    case unreachable
    /// Its page's `<base href>` points outside the site: where its relative URLs lead, and
    /// where the outputs' would, is not the site's to say.
    case baseElsewhere = "base_elsewhere"

    public static func < (a: SkipReason, b: SkipReason) -> Bool { a.rawValue < b.rawValue }
}
