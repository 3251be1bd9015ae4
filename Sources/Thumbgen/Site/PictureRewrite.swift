import Foundation

/// The markup that replaces an `<img>`: a `<picture>` with a `<source>` per modern format and
/// the author's `<img>`, which gains what a responsive image needs and keeps every byte of
/// its own. No whitespace is added, so the page gains no text node.
enum PictureRewrite {
    /// One rendered candidate: its URL (relative to the page) and its width.
    struct Candidate: Equatable {
        var url: String
        var width: Int
    }

    /// The replacement of `element`, whose image is `intrinsic` (width and height) as made: a `<source>` for each of
    /// `modern`'s srcsets (best first; empty ones left out), `fallback`'s srcset for the `<img>`,
    /// `sizes` unless the author gave one, `background` (an inline style drawing the
    /// placeholder) unless the author gave a `style`; `first` for the first image of its page
    /// (likely the largest paint: fetched at once, at high priority).
    static func markup(_ element: SiteElement, intrinsic: (width: Int, height: Int), modern: [(type: String, srcset: String)],
                       fallback: String, sizes: String, background: String?, first: Bool) -> [UInt8] {
        let own = element.attributes
        let chosenSizes = own["sizes"] ?? sizes
        var added: [(String, String)] = [("srcset", fallback)]
        if own["sizes"] == nil { added.append(("sizes", sizes)) }
        switch (own["width"].flatMap(Int.init), own["height"].flatMap(Int.init)) {
        case (nil, nil) where own["width"] == nil && own["height"] == nil:
            added += [("width", String(intrinsic.width)), ("height", String(intrinsic.height))]
        case (let width?, nil) where own["height"] == nil && intrinsic.width > 0:
            if let height = scaled(width, intrinsic.height, intrinsic.width) { added.append(("height", height)) }
        case (nil, let height?) where own["width"] == nil && intrinsic.height > 0:
            if let width = scaled(height, intrinsic.width, intrinsic.height) { added.append(("width", width)) }
        default:
            break
        }
        if let background, own["style"] == nil { added.append(("style", background)) }
        if first {
            if own["fetchpriority"] == nil { added.append(("fetchpriority", "high")) }
        } else {
            if own["loading"] == nil { added.append(("loading", "lazy")) }
            if own["decoding"] == nil { added.append(("decoding", "async")) }
        }
        var out: [UInt8] = []
        out.reserveCapacity(element.tag.count + 1024)
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        let names = added.map(\.0).joined(separator: " ")
        guard modern.contains(where: { !$0.srcset.isEmpty }) else {
            // No modern format: the <img> alone, its marker the last of the attributes added.
            out.append(contentsOf: element.tag[..<element.insertionPoint])
            for (name, value) in added + [(FoundImage.marker, names)] { append(" \(name)=\"\(escaped(value))\"") }
            out.append(contentsOf: element.tag[element.insertionPoint...])
            return out
        }
        append("<picture \(FoundImage.marker)=\"")
        append(names + "\">")
        let escapedSizes = escaped(chosenSizes)
        for (type, srcset) in modern where !srcset.isEmpty {
            append("<source type=\"\(type)\" srcset=\"\(escaped(srcset))\" sizes=\"\(escapedSizes)\">")
        }
        out.append(contentsOf: element.tag[..<element.insertionPoint])
        for (name, value) in added { append(" \(name)=\"\(escaped(value))\"") }
        out.append(contentsOf: element.tag[element.insertionPoint...])
        append("</picture>")
        return out
    }

    /// `value × by / over`, rounded; nil when the page's own value makes it no whole number
    /// an `Int` holds (`width="9000000000000000000"`).
    private static func scaled(_ value: Int, _ by: Int, _ over: Int) -> String? {
        Int(exactly: (Double(value) * Double(by) / Double(over)).rounded()).map(String.init)
    }

    /// The srcset of `candidates`: `url width` pairs, narrowest first.
    static func srcset(_ candidates: [Candidate]) -> String {
        candidates.sorted { $0.width < $1.width }.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
    }

    /// `text` for a double-quoted attribute value.
    static func escaped(_ text: String) -> String { HTMLEscaping.escaped(text) }
}
