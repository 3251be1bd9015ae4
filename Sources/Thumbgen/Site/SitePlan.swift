import Foundation

/// A built site's pages read and their `<img>` elements sorted out: those to rewrite, each
/// with its source, and those left alone, each with its reason. The rows to render follow
/// from it (`records`), and the pages are rewritten from the rows' results (`SiteRewrite`).
public final class SitePlan: @unchecked Sendable {
    /// A page with elements to rewrite. Not its bytes: a site's pages are read again one at a
    /// time when they are rewritten, and must still be what was read here (`digest`).
    struct Page {
        /// Relative to the site's folder.
        var path: String
        /// The SHA-256 of the bytes the elements' ranges point into.
        var digest: String
        var elements: [SiteElement]
    }

    /// A source some element shows.
    struct Source {
        var path: String
        var facts: SourceFacts
    }

    /// The site's folder, absolute and resolved.
    public let root: String
    public let settings: SiteSettings
    /// HTML files read.
    public private(set) var pageCount = 0
    var pages: [Page] = []
    var sources: [Source] = []
    /// Elements left alone, by reason.
    public private(set) var skipped: [SkipReason: Int] = [:]
    /// Pages left untouched, each with why (not UTF-8, unreadable).
    public private(set) var untouched: [(page: String, reason: String)] = []

    /// Reads every `.html` and `.htm` file under `root` (not in the output folder nor in
    /// folders whose names start with a dot).
    public init(root: String, settings: SiteSettings) throws(SiteError) {
        guard let real = realpath(root, nil) else { throw SiteError("\(root): no such folder") }
        self.root = String(cString: real)
        free(real)
        self.settings = settings
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.root, isDirectory: &isFolder), isFolder.boolValue else {
            throw SiteError("\(root) is not a folder")
        }
        var sourceIndex: [String: Int] = [:]
        var factsOf: [String: SourceFacts?] = [:]
        for relative in htmlFiles() {
            pageCount += 1
            guard let data = FileManager.default.contents(atPath: self.root + "/" + relative) else {
                untouched.append((relative, "cannot be read"))
                continue
            }
            let bytes = [UInt8](data)
            guard String(validating: bytes, as: UTF8.self) != nil else {
                untouched.append((relative, "is not UTF-8"))
                continue
            }
            guard Self.mayHoldImages(bytes) else { continue }
            var elements: [SiteElement] = []
            for found in HTMLScan.images(in: bytes) {
                switch decide(found, page: relative, facts: &factsOf) {
                case .failure(let reason):
                    skipped[reason, default: 0] += 1
                case .success(let (path, replacing, added)):
                    let index: Int
                    if let known = sourceIndex[path] {
                        index = known
                    } else {
                        index = sources.count
                        sourceIndex[path] = index
                        sources.append(Source(path: path, facts: factsOf[path]!!))
                    }
                    elements.append(SiteElement.authored(found, in: bytes, replacing: replacing, added: added,
                                                         source: index))
                }
            }
            if !elements.isEmpty { pages.append(Page(path: relative, digest: ContentDigest.of(bytes), elements: elements)) }
        }
    }

    /// A line per element to rewrite: `page:line <img src="...">`.
    public func eligibleLines() -> [String] {
        pages.flatMap { page in
            page.elements.map { "\(page.path):\($0.line) <img src=\"\($0.attributes["src"] ?? "")\">" }
        }
    }

    /// Whether `bytes` hold `<img` in any case: a page without it needs no parse.
    static func mayHoldImages(_ bytes: [UInt8]) -> Bool {
        let tag: [UInt8] = Array("<img".utf8)
        guard bytes.count >= tag.count else { return false }
        for start in 0...(bytes.count - tag.count) where bytes[start] == 0x3C {
            if (1..<4).allSatisfy({ bytes[start + $0] | 0x20 == tag[$0] }) { return true }
        }
        return false
    }

    /// Whether to rewrite `found`: its source, the range it replaces and the attribute names
    /// thumbgen added to it before; or why not.
    private func decide(_ found: FoundImage, page: String, facts: inout [String: SourceFacts?])
        -> Result<(String, Range<Int>, Set<String>), SkipReason>
    {
        if found.value(FoundImage.marker)?.lowercased() == "skip" { return .failure(.markedSkip) }
        var replacing = found.tag
        var added: Set<String> = []
        switch found.context {
        case .inTemplate:
            return .failure(.inTemplate)
        case .inPicture(let picture):
            guard let marker = picture.marker, let range = picture.range else { return .failure(.inPicture) }
            replacing = range
            added = Set(marker.split(separator: " ").map(String.init))
        case .plain:
            // thumbgen's own <img> (no <picture>: no modern format): its marker lists what it added.
            if let marker = found.value(FoundImage.marker) {
                added = Set(marker.split(separator: " ").map(String.init) + [FoundImage.marker])
            }
        }
        if found.value("srcset") != nil && !added.contains("srcset") { return .failure(.hasSrcset) }
        let path: String
        switch ImageReference.resolve(found.value("src") ?? "", page: page, root: root, baseURL: settings.baseURL) {
        case .failure(let reason): return .failure(reason)
        case .success(let resolved): path = resolved
        }
        if facts[path] == nil { facts[path] = .some(SourceFacts.read(path: path)) }
        guard let known = facts[path] ?? nil else {
            return .failure(Self.isSVG(path) ? .svg : .notImage)
        }
        if known.animated { return .failure(.animated) }
        if known.width < settings.minWidth { return .failure(.small) }
        return .success((path, replacing, added))
    }

    private static func isSVG(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".svg") || path.lowercased().hasSuffix(".svgz")
            || FormatSniffer.header(path: path).flatMap(FormatSniffer.vectorLoader(forHeader:)) == "svgload"
    }

    /// The HTML files under the root, relative to it, sorted.
    private func htmlFiles() -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root) else { return [] }
        var found: [String] = []
        while let relative = walk.nextObject() as? String {
            let name = (relative as NSString).lastPathComponent
            if walk.fileAttributes?[.type] as? FileAttributeType == .typeDirectory {
                if name.hasPrefix(".") || relative == settings.outFolder { walk.skipDescendants() }
                continue
            }
            let ext = (name as NSString).pathExtension.lowercased()
            if ext == "html" || ext == "htm" { found.append(relative) }
        }
        return found.sorted()
    }
}

/// A site that cannot be read at all.
public struct SiteError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ description: String) { self.description = description }
}
