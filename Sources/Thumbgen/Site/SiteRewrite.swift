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
    /// Every page with an `<img>`, for the report's `pages` section, in the order of their paths.
    public var pages: [SitePageReport] = []
}

extension SitePlan {
    /// Rewrites every page with elements from the rows' `results` (rows of `SiteRows(self)`),
    /// each page read again (and left alone if it changed since the plan read it), replaced
    /// atomically, and only where its bytes change.
    public func rewrite(results: [RowResult]) throws -> SiteOutcome {
        var outputs: [Int: [String: [Int: String]]] = [:]
        var outputBytes: [Int: [String: [Int: Int]]] = [:]
        // By file: a run makes one placeholder a source file, from its smallest output, whatever
        // the presets its images are shown with.
        var placeholders: [String: PlaceholderFields] = [:]
        for result in results where result.status == .written || result.status == .unchanged {
            guard let row = SiteRows.parse(id: result.id), let out = result.out, let width = result.width else { continue }
            outputs[row.source, default: [:]][row.format, default: [:]][width] = out
            outputBytes[row.source, default: [:]][row.format, default: [:]][width] = result.bytes ?? 0
            if let placeholder = result.placeholder, row.source < sources.count {
                placeholders[sources[row.source].path] = placeholder
            }
        }
        // What the report says of a rewritten element: its widths and their bytes by format.
        func reported(_ element: SiteElement, failed: Bool) -> SitePageReport.Element {
            let source = sources[element.source]
            var report = SitePageReport.Element(line: element.line, src: element.attributes["src"] ?? "",
                                                status: failed ? .failed : .rewritten, preset: source.settings.preset,
                                                bytesBefore: source.bytes, position: element.replacing.lowerBound)
            if failed { report.reason = "none of its \(source.facts.fallback) outputs was made" }
            let made = outputBytes[element.source] ?? [:]
            let widths = Set(made.values.flatMap(\.keys)).sorted()
            if !widths.isEmpty {
                report.widths = widths
                report.bytesAfter = made.mapValues { byWidth in widths.map { byWidth[$0] ?? 0 } }
            }
            return report
        }
        var reports: [String: SitePageReport] = [:]
        for (page, elements) in leftAlone {
            reports[page] = SitePageReport(page: page, status: .unchanged, elements: elements)
        }
        for (page, reason) in untouched {
            reports[page] = SitePageReport(page: page, status: .untouched, reason: "it \(reason)", elements: [])
        }
        let writer = try AtomicFileWriter(root: URL(fileURLWithPath: root))
        let outFolder = URL(fileURLWithPath: root + "/" + settings.outFolder)
        var srcsets: [SrcsetKey: String] = [:]
        var outcome = SiteOutcome()
        for page in pages {
            var report = reports[page.path] ?? SitePageReport(page: page.path, status: .unchanged, elements: [])
            defer {
                reports[page.path] = report
            }
            guard let data = FileManager.default.contents(atPath: root + "/" + page.path),
                  ContentDigest.of(data) == page.digest else {
                outcome.changedMeanwhile.append(page.path)
                report.status = .untouched
                report.reason = "it changed while thumbgen ran"
                continue
            }
            let bytes = [UInt8](data)
            // The way from the page's folder to the output folder, once a page (it resolves
            // links, a system call a folder): outputs are paths under it.
            let base = ContactSheet.relativeURL(from: URL(fileURLWithPath: root + "/" + page.linkFolder, isDirectory: true),
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
                    report.elements.append(reported(element, failed: true))
                    continue
                }
                let image = source.settings
                let modern = image.formats.map { (type: Self.mediaType($0), srcset: srcset(element.source, $0)) }
                let background = placeholders[source.path].flatMap(PictureMarkup.background)
                let markup = PictureRewrite.markup(element, intrinsic: image.intrinsicSize(source.facts), modern: modern,
                                                   fallback: fallback, sizes: image.sizes, background: background,
                                                   first: order == 0)
                outcome.elementsRewritten += 1
                report.elements.append(reported(element, failed: false))
                if !bytes[element.replacing].elementsEqual(markup) { replacements.append((element.replacing, markup)) }
            }
            guard !replacements.isEmpty else {
                outcome.pagesUnchanged += 1
                continue
            }
            outcome.pagesChanged += 1
            report.status = .rewritten
            _ = try writer.write(Data(Self.splice(bytes, replacements)), to: page.path)
        }
        outcome.pages = reports.values.sorted { $0.page < $1.page }.map { page in
            var page = page
            page.elements.sort { $0.position < $1.position }
            return page
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
