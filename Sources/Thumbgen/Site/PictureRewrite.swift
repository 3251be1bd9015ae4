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

    /// The replacement of `element`, whose source is `facts`: `modern` candidates by format
    /// (best first; formats with none left out), `fallback` for the `<img>`, `sizes` unless
    /// the author gave one, `background` (an inline style drawing the placeholder) unless the
    /// author gave a `style`; `first` for the first image of its page (likely the largest
    /// paint: fetched at once, at high priority).
    static func markup(_ element: SiteElement, facts: SourceFacts, modern: [(type: String, candidates: [Candidate])],
                       fallback: [Candidate], sizes: String, background: String?, first: Bool) -> [UInt8] {
        let own = element.attributes
        let chosenSizes = own["sizes"] ?? sizes
        var added: [(String, String)] = [("srcset", srcset(fallback))]
        if own["sizes"] == nil { added.append(("sizes", sizes)) }
        switch (own["width"].flatMap(Int.init), own["height"].flatMap(Int.init)) {
        case (nil, nil) where own["width"] == nil && own["height"] == nil:
            added += [("width", String(facts.width)), ("height", String(facts.height))]
        case (let width?, nil) where own["height"] == nil && facts.width > 0:
            added.append(("height", String(Int((Double(width) * Double(facts.height) / Double(facts.width)).rounded()))))
        case (nil, let height?) where own["width"] == nil && facts.height > 0:
            added.append(("width", String(Int((Double(height) * Double(facts.width) / Double(facts.height)).rounded()))))
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
        var tag = element.tag
        let run = added.map { " \($0.0)=\"\(escaped($0.1))\"" }.joined()
        tag.insert(contentsOf: Array(run.utf8), at: element.insertionPoint)
        var out = "<picture \(FoundImage.marker)=\"\(added.map(\.0).joined(separator: " "))\">"
        for (type, candidates) in modern where !candidates.isEmpty {
            out += "<source type=\"\(type)\" srcset=\"\(escaped(srcset(candidates)))\" sizes=\"\(escaped(chosenSizes))\">"
        }
        return Array(out.utf8) + tag + Array("</picture>".utf8)
    }

    /// `url width` pairs, narrowest first.
    private static func srcset(_ candidates: [Candidate]) -> String {
        candidates.sorted { $0.width < $1.width }.map { "\($0.url) \($0.width)w" }.joined(separator: ", ")
    }

    /// `text` for a double-quoted attribute value.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
