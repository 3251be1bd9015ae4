import Foundation

/// `focus=auto`: the focal point a file carries, in fractions of the upright image. First the
/// IPTC Image Region (XMP, `Iptc4xmpExt:ImageRegion`) whose role is "main subject", else one
/// whose role is "cropping": the centre of its rectangle or circle. Else EXIF `SubjectArea`
/// (a point, circle or rectangle in stored pixels, turned by the EXIF orientation). Nil when
/// the file has neither; the row then crops at its gravity.
enum FocusFinder {
    /// The roles a region may have to serve as the focus, preferred first.
    static let roles = ["imageregionrole/mainSubject", "imageregionrole/cropping"]

    /// The focal point `xmp` (an XMP packet) and `subjectArea` (libvips' text of EXIF
    /// `SubjectArea`) give an image stored `storedWidth` × `storedHeight` with EXIF
    /// `orientation`.
    static func focus(xmp: String?, subjectArea: String?, storedWidth: Int, storedHeight: Int,
                      orientation: Int) -> FocusPoint? {
        let (uprightWidth, uprightHeight) = orientation >= 5 ? (storedHeight, storedWidth) : (storedWidth, storedHeight)
        if let xmp, let point = region(xmp: xmp, width: uprightWidth, height: uprightHeight) { return point }
        guard let subjectArea, storedWidth > 0, storedHeight > 0 else { return nil }
        let numbers = subjectArea.prefix { $0 != "(" }.split(separator: " ").compactMap { Double($0) }
        guard numbers.count >= 2 else { return nil }
        let stored = (numbers[0] / Double(storedWidth), numbers[1] / Double(storedHeight))
        let point = upright(stored, orientation: orientation)
        let found = FocusPoint(x: point.0, y: point.1)
        return found.isValid ? found : nil
    }

    /// A point at fractions of the stored image, in fractions of the upright one.
    static func upright(_ p: (Double, Double), orientation: Int) -> (Double, Double) {
        switch orientation {
        case 2: (1 - p.0, p.1)
        case 3: (1 - p.0, 1 - p.1)
        case 4: (p.0, 1 - p.1)
        case 5: (p.1, p.0)
        case 6: (1 - p.1, p.0)
        case 7: (1 - p.1, 1 - p.0)
        case 8: (p.1, 1 - p.0)
        default: p
        }
    }

    /// The centre of the preferred region of the IPTC Image Region list in `xmp`, in fractions
    /// of a `width` × `height` image (a region in pixels is divided by them).
    static func region(xmp: String, width: Int, height: Int) -> FocusPoint? {
        guard let list = xmp.range(of: "ImageRegion") else { return nil }
        let items = topLevelItems(String(xmp[list.upperBound...]))
        for role in roles {
            for item in items where item.contains(role) {
                if let point = centre(of: item, width: width, height: height) { return point }
            }
        }
        return nil
    }

    /// The `rdf:li` items of the first `rdf:Bag` or `rdf:Seq` in `text`, outermost only.
    static func topLevelItems(_ text: String) -> [String] {
        var items: [String] = []
        var depth = 0, start: String.Index?
        var index = text.startIndex
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("<rdf:li") {
                let close = rest.firstIndex(of: ">") ?? text.endIndex
                let selfClosing = close > index && close < text.endIndex && text[text.index(before: close)] == "/"
                if depth == 0 { start = index }
                if selfClosing {
                    if depth == 0, let begun = start { items.append(String(text[begun...close])) }
                } else {
                    depth += 1
                }
                index = close < text.endIndex ? text.index(after: close) : text.endIndex
                continue
            }
            if rest.hasPrefix("</rdf:li>") {
                depth -= 1
                let end = text.index(index, offsetBy: 9)
                if depth == 0, let begun = start { items.append(String(text[begun..<end])) }
                if depth < 0 { break }
                index = end
                continue
            }
            if depth == 0, rest.hasPrefix("</rdf:Bag>") || rest.hasPrefix("</rdf:Seq>") { break }
            index = text.index(after: index)
        }
        return items
    }

    /// The centre of the region boundary in `item`: a rectangle's, or a circle's centre.
    static func centre(of item: String, width: Int, height: Int) -> FocusPoint? {
        let relative = value("rbUnit", in: item)?.lowercased() != "pixel"
        let (scaleX, scaleY) = relative ? (1.0, 1.0) : (1 / Double(max(width, 1)), 1 / Double(max(height, 1)))
        let point: FocusPoint
        if let cx = number("rbCx", in: item), let cy = number("rbCy", in: item) {
            point = FocusPoint(x: cx * scaleX, y: cy * scaleY)
        } else if let x = number("rbX", in: item), let y = number("rbY", in: item),
                  let w = number("rbW", in: item), let h = number("rbH", in: item) {
            point = FocusPoint(x: (x + w / 2) * scaleX, y: (y + h / 2) * scaleY)
        } else {
            return nil
        }
        return point.isValid ? point : nil
    }

    private static func number(_ name: String, in item: String) -> Double? {
        value(name, in: item).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The value of the XMP property `name` (any prefix), as an attribute (`p:name="v"`) or an
    /// element (`<p:name>v</p:name>`).
    static func value(_ name: String, in item: String) -> String? {
        var search = item.startIndex
        while let found = item.range(of: ":" + name, range: search..<item.endIndex) {
            search = found.upperBound
            let rest = item[found.upperBound...]
            if rest.hasPrefix("=\"") || rest.hasPrefix("='") {
                let quote = rest[rest.index(after: rest.startIndex)]
                let body = rest.dropFirst(2)
                if let end = body.firstIndex(of: quote) { return String(body[..<end]) }
            } else if rest.hasPrefix(">") {
                let body = rest.dropFirst()
                if let end = body.firstIndex(of: "<") { return String(body[..<end]) }
            }
        }
        return nil
    }
}
