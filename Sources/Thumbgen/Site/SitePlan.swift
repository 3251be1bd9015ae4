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
        /// The folder its relative URLs resolve from (relative to the site): its own, or its
        /// `<base href>`'s.
        var linkFolder: String
        var elements: [SiteElement]
    }

    /// A source some element shows, with the settings it is made with: an image shown with
    /// two presets is two sources.
    struct Source {
        var path: String
        var facts: SourceFacts
        var settings: ImageSettings
        /// The file's size.
        var bytes: Int
    }

    /// The site's folder, absolute and resolved.
    public let root: String
    public let settings: SiteSettings
    /// HTML files read.
    public private(set) var pageCount = 0
    var pages: [Page] = []
    var sources: [Source] = []
    /// Elements left alone, by reason.
    public internal(set) var skipped: [SkipReason: Int] = [:]
    /// Pages left untouched, each with why (not UTF-8, unreadable).
    public private(set) var untouched: [(page: String, reason: String)] = []
    /// Elements that name a preset there is not: left as written, and failures
    /// (`page:line: …`).
    public private(set) var presetErrors: [String] = []
    /// The presets with a setting `thumbgen site` cannot apply that an image was to be made
    /// with (`SiteSettings.presetProblems`).
    public private(set) var badPresetsUsed: Set<String> = []
    /// The elements not rewritten (skipped, or failed for their preset), by page, for the
    /// report.
    var leftAlone: [String: [SitePageReport.Element]] = [:]
    /// Other sites' images to download before their elements are decided (`--fetch`): where
    /// each element stands (page, element), and its URL.
    var remoteElements: [(page: Int, element: Int, url: String)] = []
    var remotePresets: [String?] = []
    /// Sources by path (or URL) and preset.
    var sourceIndex: [String: Int] = [:]
    /// The URLs `--fetch` downloads, each once: `settleRemote` then decides their elements.
    public var remoteURLs: [String] { Array(Set(remoteElements.map(\.url))).sorted() }

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
            let (images, baseHref) = HTMLScan.scan(bytes)
            var linkFolder = (relative as NSString).deletingLastPathComponent
            var baseProblem: SkipReason?
            if let baseHref {
                switch ImageReference.baseFolder(baseHref, page: relative, baseURL: settings.baseURL) {
                case .success(let folder): linkFolder = folder
                case .failure(let reason): baseProblem = reason
                }
            }
            // Relative URLs resolve as from a page in that folder.
            let resolvingPage = linkFolder.isEmpty ? "page" : linkFolder + "/page"
            for found in images where baseProblem != nil {
                skipped[.baseElsewhere, default: 0] += 1
                leftAlone[relative, default: []].append(SitePageReport.Element(
                    line: found.line, src: found.value("src") ?? "", status: .skipped, reason: SkipReason.baseElsewhere.rawValue,
                    position: found.tag.lowerBound))
            }
            for found in images where baseProblem == nil {
                let src = found.value("src") ?? ""
                let presetName = found.value(FoundImage.presetAttribute) ?? rulePreset(for: relative)
                let presetProblem = presetName.flatMap(problem(ofPreset:))
                // An image that would be rewritten but names a preset it cannot have: a failure
                // (one left alone anyway keeps its reason).
                func failForPreset() {
                    guard let presetProblem else { return }
                    presetErrors.append("\(relative):\(found.line): <img src=\"\(src)\">: \(presetProblem)")
                    leftAlone[relative, default: []].append(
                        SitePageReport.Element(line: found.line, src: src, status: .failed, reason: presetProblem, preset: presetName,
                                               position: found.tag.lowerBound))
                }
                let image = ImageSettings(settings, preset: presetProblem == nil ? presetName : nil)
                if settings.fetch, let url = remote(found), case .success(let (replacing, added)) = eligible(found) {
                    if presetProblem != nil {
                        failForPreset()
                        continue
                    }
                    // Decided once it is downloaded (`settleRemote`); its source for now none.
                    remoteElements.append((pages.count, elements.count, url))
                    elements.append(SiteElement.authored(found, in: bytes, replacing: replacing, added: added, source: -1))
                    remotePresets.append(presetName)
                    continue
                }
                switch decide(found, page: resolvingPage, image: image, facts: &factsOf) {
                case .failure(let reason):
                    skipped[reason, default: 0] += 1
                    leftAlone[relative, default: []].append(
                        SitePageReport.Element(line: found.line, src: src, status: .skipped, reason: reason.rawValue,
                                               preset: presetName, position: found.tag.lowerBound))
                case .success where presetProblem != nil:
                    failForPreset()
                case .success(let (path, replacing, added)):
                    let index: Int
                    let identity = path + "\n" + (presetName ?? "")
                    if let known = sourceIndex[identity] {
                        index = known
                    } else {
                        index = sources.count
                        sourceIndex[identity] = index
                        sources.append(Source(path: path, facts: factsOf[path]!!, settings: image,
                                              bytes: Self.fileSize(path)))
                    }
                    elements.append(SiteElement.authored(found, in: bytes, replacing: replacing, added: added,
                                                         source: index))
                }
            }
            if !elements.isEmpty {
                pages.append(Page(path: relative, digest: ContentDigest.of(bytes), linkFolder: linkFolder, elements: elements))
            }
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

    /// Why an image cannot be made with the preset `name`: there is none, or it holds a
    /// setting `thumbgen site` cannot apply (`SiteSettings.presetProblems`, noted in
    /// `badPresetsUsed`: a mistake in the file, which the command reports as such).
    private func problem(ofPreset name: String) -> String? {
        if let problem = settings.presetProblems[name] {
            badPresetsUsed.insert(name)
            return problem
        }
        guard settings.presets[name] == nil else { return nil }
        let known = settings.presets.keys.sorted().joined(separator: ", ")
        return "names no preset \(name)" + (known.isEmpty ? "" : " (the presets: \(known))")
    }

    /// The preset of the first `[site.rules]` pattern `page` matches, if any.
    private func rulePreset(for page: String) -> String? {
        guard !settings.rules.isEmpty else { return nil }
        let components = page.split(separator: "/").map(String.init)
        return settings.rules.first { $0.pattern.matches(components) }?.preset
    }

    static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    /// Whether to rewrite `found`, made with `image`: its source, the range it replaces and
    /// the attribute names thumbgen added to it before; or why not.
    private func decide(_ found: FoundImage, page: String, image: ImageSettings, facts: inout [String: SourceFacts?])
        -> Result<(String, Range<Int>, Set<String>), SkipReason>
    {
        let replacing: Range<Int>, added: Set<String>
        switch eligible(found) {
        case .failure(let reason): return .failure(reason)
        case .success(let found): (replacing, added) = found
        }
        let path: String
        switch ImageReference.resolve(found.value("src") ?? "", page: page, root: root, baseURL: settings.baseURL) {
        case .failure(let reason): return .failure(reason)
        case .success(let resolved): path = resolved
        }
        if facts[path] == nil { facts[path] = .some(SourceFacts.read(path: path)) }
        guard let known = facts[path] ?? nil else {
            return .failure(Self.isSVG(path) ? .svg : .notImage)
        }
        return Self.check(known, image).map { (path, replacing, added) }
    }

    /// Whether an image with `facts`, made with `image`, is one to rewrite.
    static func check(_ facts: SourceFacts, _ image: ImageSettings) -> Result<Void, SkipReason> {
        if facts.animated { return .failure(.animated) }
        if facts.width < image.minWidth { return .failure(.small) }
        return .success(())
    }

    /// Whether `found` may be rewritten wherever its image is, by its markup alone: the range
    /// it replaces and the attribute names thumbgen added to it before; or why not.
    private func eligible(_ found: FoundImage) -> Result<(Range<Int>, Set<String>), SkipReason> {
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
        return .success((replacing, added))
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
