/// The `<picture>` element the index gives each source (`html`): what eleventy-img's
/// `returnType: "html"` and the frameworks' image components write, so that a template pastes
/// it instead of assembling srcsets by hand.
///
/// A `<source>` per modern format, best first (AVIF, JPEG XL, WebP), each with its `srcset` and
/// `sizes`; then an `<img>` of the fallback format (JPEG, else PNG, else GIF, else the last
/// modern one): its `srcset`, its widest output as `src` (its narrowest with x descriptors,
/// `--density`), that output's `width` and `height`
/// (so the page reserves the box before the image arrives), `loading="lazy"`,
/// `decoding="async"` and an empty `alt` for the template to fill; with a placeholder, an inline
/// `background` of its LQIP over its dominant colour, which shows in the reserved box until the
/// image paints (not for an image with transparency, through which it would stay visible).
/// Every attribute value is escaped.
enum PictureMarkup {
    /// Formats a `<source>` is written for, best first: browsers take the first they support.
    static let modern: [OutputFormat] = [.avif, .jxl, .webp]
    /// Formats the `<img>` may be of, most widely supported first.
    static let fallbacks: [OutputFormat] = [.jpeg, .png, .gif]

    /// The markup for a source's outputs by format, with `sizes` (a `sizes` attribute value,
    /// such as `100vw` or `(min-width: 800px) 50vw, 100vw`); nil when no format a browser
    /// shows is among them (TIFF alone). Without `sizes`, the srcsets are in x descriptors: the
    /// `<img>` is the narrowest output (density 1), at its own width and height.
    static func html(formats: [String: ImageIndex.Format], sizes: String?,
                     placeholder: PlaceholderFields? = nil) -> String? {
        let present = OutputFormat.allCases.filter { formats[$0.rawValue] != nil && $0 != .tiff }
        guard let fallback = fallbacks.first(where: present.contains) ?? modern.reversed().first(where: present.contains),
              let image = formats[fallback.rawValue],
              let shown = sizes == nil ? image.outputs.first : image.outputs.last else { return nil }
        let sizesAttribute = sizes.map { " sizes=\"\(escaped($0))\"" } ?? ""
        var html = "<picture>"
        for format in modern where format != fallback {
            guard let group = formats[format.rawValue] else { continue }
            html += "<source type=\"\(escaped(group.type))\" srcset=\"\(escaped(group.srcset))\"\(sizesAttribute)>"
        }
        html += "<img src=\"\(escaped(shown.url))\" srcset=\"\(escaped(image.srcset))\"\(sizesAttribute)"
            + " width=\"\(shown.width)\" height=\"\(shown.height)\" alt=\"\" loading=\"lazy\" decoding=\"async\""
        if let style = placeholder.flatMap(background) { html += " style=\"\(escaped(style))\"" }
        return html + "></picture>"
    }

    /// The inline style that draws `placeholder` behind the image: the LQIP stretched over the
    /// box on the dominant colour, either alone, or nil when it has neither or is transparent.
    static func background(_ placeholder: PlaceholderFields) -> String? {
        guard placeholder.transparent != true else { return nil }
        // A data URI holds no space, quote or parenthesis: `url()` takes it unquoted.
        let parts = [placeholder.dominant, placeholder.lqip.map { "url(\($0)) center/cover no-repeat" }].compactMap { $0 }
        return parts.isEmpty ? nil : "background:" + parts.joined(separator: " ")
    }

    /// `text` as an attribute value between double quotes (the contact sheet's escaping).
    static func escaped(_ text: String) -> String {
        ContactSheet.escaped(text)
    }
}
