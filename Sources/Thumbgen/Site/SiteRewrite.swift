import Foundation

/// What rewriting a site's pages did.
public struct SiteOutcome: Sendable, Equatable {
    /// Pages whose bytes changed (written, or with `dryRun` to be written).
    public var pagesChanged = 0
    /// Pages with elements to rewrite whose bytes came out the same: thumbgen's own output.
    public var pagesUnchanged = 0
    /// Elements given their `<picture>` (or found already with the one they would get).
    public var elementsRewritten = 0
    /// Elements left as they were because none of their fallback's rows was made.
    public var elementsFailed = 0
    /// Pages left as they were because they changed (or went) since they were read: a
    /// generator writing them again meanwhile. Relative to the site's folder.
    public var changedMeanwhile: [String] = []
}

extension SitePlan {
    /// Rewrites every page with elements from the rows' `results` (rows of `SiteRows(self)`),
    /// each page read again (and left alone if it changed since the plan read it), replaced
    /// atomically, and only where its bytes change.
    public func rewrite(results: [RowResult]) throws -> SiteOutcome {
        var outputs: [Int: [String: [Int: String]]] = [:]
        var placeholders: [Int: PlaceholderFields] = [:]
        for result in results where result.status == .written || result.status == .unchanged {
            guard let row = SiteRows.parse(id: result.id), let out = result.out, let width = result.width else { continue }
            outputs[row.source, default: [:]][row.format, default: [:]][width] = out
            if let placeholder = result.placeholder { placeholders[row.source] = placeholder }
        }
        let writer = try AtomicFileWriter(root: URL(fileURLWithPath: root))
        let outFolder = URL(fileURLWithPath: root + "/" + settings.outFolder)
        var srcsets: [SrcsetKey: String] = [:]
        var outcome = SiteOutcome()
        for page in pages {
            guard let data = FileManager.default.contents(atPath: root + "/" + page.path),
                  ContentDigest.of(data) == page.digest else {
                outcome.changedMeanwhile.append(page.path)
                continue
            }
            let bytes = [UInt8](data)
            // The way from the page's folder to the output folder, once a page (it resolves
            // links, a system call a folder): outputs are paths under it.
            let base = ContactSheet.relativeURL(from: URL(fileURLWithPath: root + "/" + page.path).deletingLastPathComponent(),
                                                to: outFolder)
            // A source's srcset by format, made once for each way to the output folder: an image
            // shown on many pages of one folder depth is written out once.
            func srcset(_ source: Int, _ format: String) -> String {
                let key = SrcsetKey(base: base, source: source, format: format)
                if let made = srcsets[key] { return made }
                let candidates = (outputs[source]?[format] ?? [:]).map { width, out in
                    PictureRewrite.Candidate(url: base + ContactSheet.encodedPath(out), width: width)
                }
                let made = PictureRewrite.srcset(candidates)
                srcsets[key] = made
                return made
            }
            var replacements: [(Range<Int>, [UInt8])] = []
            for (order, element) in page.elements.enumerated() {
                let source = sources[element.source]
                let fallback = srcset(element.source, source.facts.fallback)
                guard !fallback.isEmpty else {
                    outcome.elementsFailed += 1
                    continue
                }
                let modern = settings.formats.map { (type: Self.mediaType($0), srcset: srcset(element.source, $0)) }
                let background = placeholders[element.source].flatMap(PictureMarkup.background)
                let markup = PictureRewrite.markup(element, facts: source.facts, modern: modern, fallback: fallback,
                                                   sizes: settings.sizes, background: background, first: order == 0)
                outcome.elementsRewritten += 1
                if !bytes[element.replacing].elementsEqual(markup) { replacements.append((element.replacing, markup)) }
            }
            guard !replacements.isEmpty else {
                outcome.pagesUnchanged += 1
                continue
            }
            outcome.pagesChanged += 1
            _ = try writer.write(Data(Self.splice(bytes, replacements)), to: page.path)
        }
        return outcome
    }

    /// What a srcset depends on besides the outputs: the way from the page to them.
    private struct SrcsetKey: Hashable {
        var base: String
        var source: Int
        var format: String
    }

    /// `bytes` with each range replaced; the ranges do not overlap.
    static func splice(_ bytes: [UInt8], _ replacements: [(Range<Int>, [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + replacements.reduce(0) { $0 + $1.1.count })
        var at = 0
        for (range, replacement) in replacements.sorted(by: { $0.0.lowerBound < $1.0.lowerBound }) {
            out += bytes[at..<range.lowerBound]
            out += replacement
            at = range.upperBound
        }
        out += bytes[at...]
        return out
    }

    /// The media type of an output format's name.
    static func mediaType(_ format: String) -> String {
        switch format {
        case "jpeg", "jpg": return "image/jpeg"
        default: return "image/" + format
        }
    }
}
