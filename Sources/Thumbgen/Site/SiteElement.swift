/// An `<img>` of a page that `thumbgen site` rewrites, as the author wrote it.
struct SiteElement: Sendable {
    /// The bytes of the page it replaces: the `<img>` tag, or all of thumbgen's own
    /// `<picture>` from an earlier run.
    var replacing: Range<Int>
    /// The author's `<img>` tag, without anything thumbgen added to it.
    var tag: [UInt8]
    /// Where in `tag` new attributes go.
    var insertionPoint: Int
    /// The author's attributes, by name (the first of a repeated name).
    var attributes: [String: String]
    /// The index of its source in the plan's list.
    var source: Int
    /// The line of the page it starts on.
    var line: Int

    /// The author's `<img>` out of `found` in `page`: its tag as written, or, inside
    /// thumbgen's own `<picture>`, the tag less the run of attributes thumbgen inserted (the
    /// names the picture's marker lists), which an earlier run put right after the author's.
    static func authored(_ found: FoundImage, in page: [UInt8], replacing: Range<Int>, added: Set<String>,
                         source: Int) -> SiteElement {
        var attributes: [String: String] = [:]
        var kept: [FoundImage.Attribute] = []
        var inserted: [FoundImage.Attribute] = []
        for attribute in found.attributes {
            if added.contains(attribute.name) { inserted.append(attribute) } else { kept.append(attribute) }
        }
        for attribute in kept where attributes[attribute.name] == nil { attributes[attribute.name] = attribute.value }
        var tag = Array(page[found.tag])
        var point = found.insertionPoint - found.tag.lowerBound
        if let first = inserted.map(\.nameRange.lowerBound).min(), let last = inserted.map(\.end).max() {
            // The space before the first inserted name goes with the run.
            let cut = (first - 1 - found.tag.lowerBound)..<(last - found.tag.lowerBound)
            tag.removeSubrange(cut)
            point = cut.lowerBound
        }
        return SiteElement(replacing: replacing, tag: tag, insertionPoint: point, attributes: attributes,
                           source: source, line: found.line)
    }
}
