import CGumbo

/// The `<img>` start tags of a page, found by an HTML5 parser (gumbo) where a browser would
/// find them, each with the byte ranges it was written at: a page is rewritten by splicing
/// those ranges, never by serialising a tree, so every other byte stays as it was.
enum HTMLScan {
    /// The `<img>` elements of `page` (UTF-8), in document order. An `<img>` in a comment, a
    /// `<script>`, a `<textarea>` or any other text is none; nor is one the parser made up.
    static func images(in page: [UInt8]) -> [FoundImage] {
        scan(page).images
    }

    /// The `<img>` elements of `page` and the `href` of its first `<base>` that has one (which
    /// relative URLs of the page resolve against, as a browser does), if any.
    static func scan(_ page: [UInt8]) -> (images: [FoundImage], baseHref: String?) {
        page.withUnsafeBufferPointer { bytes -> ([FoundImage], String?) in
            guard let base = bytes.baseAddress, bytes.count > 0 else { return ([], nil) }
            let start = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            guard let output = tg_gumbo_parse(start, bytes.count) else { return ([], nil) }
            defer { tg_gumbo_free(output) }
            var found: [FoundImage] = []
            var baseHref: String?
            walk(output.pointee.document, base: start, into: &found, baseHref: &baseHref)
            return (found, baseHref)
        }
    }

    /// Where an element stands among its ancestors.
    private struct Ancestry {
        var picture: UnsafeMutablePointer<GumboElement>?
        var inTemplate = false
    }

    /// Visits the tree depth first with a stack of its own: a page's nesting is the author's
    /// to choose, and recursion would let a deep one overflow the thread's stack.
    private static func walk(_ root: UnsafeMutablePointer<GumboNode>, base: UnsafePointer<CChar>,
                             into found: inout [FoundImage], baseHref: inout String?) {
        var stack: [(UnsafeMutablePointer<GumboNode>, Ancestry)] = [(root, Ancestry())]
        while let (node, ancestry) = stack.popLast() {
            var inner = ancestry
            if let element = tg_gumbo_element(node), element.pointee.original_tag.length > 0 {
                switch element.pointee.tag {
                case GUMBO_TAG_IMG where element.pointee.tag_namespace == GUMBO_NAMESPACE_HTML
                    && node.pointee.parse_flags.rawValue & GUMBO_INSERTION_FROM_IMAGE.rawValue == 0:
                    found.append(image(element, base: base, ancestry: ancestry))
                case GUMBO_TAG_TEMPLATE: inner.inTemplate = true
                case GUMBO_TAG_BASE where baseHref == nil && element.pointee.tag_namespace == GUMBO_NAMESPACE_HTML
                    && !ancestry.inTemplate:
                    baseHref = attribute("href", of: element)
                default:
                    if isPicture(element) { inner.picture = element }
                }
            }
            guard let children = tg_gumbo_children(node) else { continue }
            // Pushed last to first, so that they come off in document order.
            for index in stride(from: Int(children.pointee.length) - 1, through: 0, by: -1) {
                guard let child = children.pointee.data[index] else { continue }
                stack.append((child.assumingMemoryBound(to: GumboNode.self), inner))
            }
        }
    }

    private static func image(_ element: UnsafeMutablePointer<GumboElement>, base: UnsafePointer<CChar>,
                              ancestry: Ancestry) -> FoundImage {
        let tag = range(element.pointee.original_tag, base: base)
        var attributes: [FoundImage.Attribute] = []
        let list = element.pointee.attributes
        for index in 0..<Int(list.length) {
            guard let raw = list.data[index]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            let attribute = raw.pointee
            let name = range(attribute.original_name, base: base)
            let value = attribute.original_value.length > 0 ? range(attribute.original_value, base: base) : nil
            attributes.append(FoundImage.Attribute(
                name: String(cString: attribute.name), value: String(cString: attribute.value),
                nameRange: name, valueRange: value))
        }
        var context = FoundImage.Context.plain
        if ancestry.inTemplate {
            context = .inTemplate
        } else if let picture = ancestry.picture {
            context = .inPicture(picturePart(picture, base: base))
        }
        return FoundImage(tag: tag, attributes: attributes, line: Int(element.pointee.start_pos.line),
                          context: context)
    }

    /// The value of the attribute `name` of `element`, if it has one.
    private static func attribute(_ name: String, of element: UnsafeMutablePointer<GumboElement>) -> String? {
        let list = element.pointee.attributes
        for index in 0..<Int(list.length) {
            guard let raw = list.data[index]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            if String(cString: raw.pointee.name) == name { return String(cString: raw.pointee.value) }
        }
        return nil
    }

    /// The picture around an `<img>`: its whole range and its own attributes.
    private static func picturePart(_ picture: UnsafeMutablePointer<GumboElement>,
                                    base: UnsafePointer<CChar>) -> FoundImage.Picture {
        let start = range(picture.pointee.original_tag, base: base)
        let end = picture.pointee.original_end_tag.length > 0
            ? range(picture.pointee.original_end_tag, base: base) : nil
        var marker: String?
        let list = picture.pointee.attributes
        for index in 0..<Int(list.length) {
            guard let raw = list.data[index]?.assumingMemoryBound(to: GumboAttribute.self) else { continue }
            if String(cString: raw.pointee.name) == FoundImage.marker { marker = String(cString: raw.pointee.value) }
        }
        return FoundImage.Picture(range: end.map { start.lowerBound..<$0.upperBound }, marker: marker)
    }

    /// Whether the element is a `<picture>`: gumbo 0.10 has no tag number for it, so its name
    /// is read from the tag as written.
    private static func isPicture(_ element: UnsafeMutablePointer<GumboElement>) -> Bool {
        let tag = element.pointee.original_tag
        guard element.pointee.tag_namespace == GUMBO_NAMESPACE_HTML, tag.length > 8, let data = tag.data else { return false }
        let name = Array("<picture".utf8)
        for index in 0..<name.count where UInt8(bitPattern: data[index]) | (index == 0 ? 0 : 0x20) != name[index] {
            return false
        }
        let after = UInt8(bitPattern: data[8])
        return after == 0x3E || after == 0x2F || after == 0x20 || (0x09...0x0D).contains(after)
    }

    private static func range(_ piece: GumboStringPiece, base: UnsafePointer<CChar>) -> Range<Int> {
        let start = piece.data - base
        return start..<(start + piece.length)
    }
}
