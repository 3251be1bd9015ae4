import Foundation

/// Other sites' images (`--fetch`): found by the scan, decided once they are downloaded.
extension SitePlan {
    /// The URL of another site's image `found` shows, if it shows one (`--fetch`): an `http:`
    /// or `https:` URL not under the site's own `--base-url` (those name its files).
    func remote(_ found: FoundImage) -> String? {
        let src = found.value("src")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard let url = ImageReference.remoteURL(src) else { return nil }
        if let own = settings.baseURL {
            let base = (own.hasSuffix("/") ? own : own + "/").lowercased()
            if src.lowercased().hasPrefix(base) { return nil }
        }
        return url
    }

    /// Decides the elements that show other sites' images from their downloads (`bodies`:
    /// the file each URL's body was stored in; a URL missing was not downloaded): each is
    /// rewritten from its URL or left alone with its reason, as a local image would be.
    public func settleRemote(bodies: [String: String]) {
        var facts: [String: (facts: SourceFacts?, bytes: Int)] = [:]
        for (url, path) in bodies { facts[url] = (SourceFacts.read(path: path), Self.fileSize(path)) }
        for (pending, preset) in zip(remoteElements, remotePresets) {
            var page = pages[pending.page]
            let element = page.elements[pending.element]
            let image = ImageSettings(settings, preset: preset)
            let src = element.attributes["src"] ?? ""
            let reason: SkipReason?
            switch facts[pending.url] {
            case nil: reason = .unreachable
            case (nil, _)?: reason = .notImage
            case let (known?, bytes)?:
                if case .failure(let why) = Self.check(known, image) {
                    reason = why
                } else {
                    reason = nil
                    let identity = pending.url + "\n" + (preset ?? "")
                    let index = sourceIndex[identity] ?? sources.count
                    if index == sources.count {
                        sourceIndex[identity] = index
                        sources.append(Source(path: pending.url, facts: known, settings: image, bytes: bytes))
                    }
                    page.elements[pending.element].source = index
                }
            }
            if let reason {
                skipped[reason, default: 0] += 1
                leftAlone[page.path, default: []].append(
                    SitePageReport.Element(line: element.line, src: src, status: .skipped, reason: reason.rawValue, preset: preset,
                                           position: element.replacing.lowerBound))
            }
            pages[pending.page] = page
        }
        // Elements left alone are taken out; a page with none left has nothing to rewrite.
        for index in pages.indices { pages[index].elements.removeAll { $0.source < 0 } }
        pages.removeAll { $0.elements.isEmpty }
        remoteElements = []
        remotePresets = []
    }
}
