/// An `<img>` start tag as a page wrote it (`HTMLScan`): byte ranges into the page.
struct FoundImage: Sendable, Equatable {
    /// The attribute thumbgen marks its own `<picture>` with; its value lists the attributes
    /// thumbgen added to the `<img>`, which a later run takes away again to find the author's
    /// tag. `skip` on an `<img>` asks thumbgen to leave it alone.
    static let marker = "data-thumbgen"
    /// The attribute that names the preset an image is made with (`thumbgen.toml`'s
    /// `[presets.NAME]`), before any `[site.rules]` path rule.
    static let presetAttribute = "data-thumbgen-preset"

    /// One attribute as written.
    struct Attribute: Sendable, Equatable {
        /// The name, lowercased (HTML's names are case-insensitive).
        var name: String
        /// The value with its character references decoded; empty when there is none.
        var value: String
        /// Where the name stands.
        var nameRange: Range<Int>
        /// Where the value stands, with its quotes; nil when there is none (`<img ismap>`).
        var valueRange: Range<Int>?

        /// The end of the attribute as written.
        var end: Int { valueRange?.upperBound ?? nameRange.upperBound }
    }

    /// The `<picture>` an `<img>` stands in.
    struct Picture: Sendable, Equatable {
        /// From its `<` to the end of its end tag; nil when it has none as written (the parser
        /// closed it).
        var range: Range<Int>?
        /// Its `data-thumbgen` value when it has one: then thumbgen made it.
        var marker: String?
    }

    /// Where the `<img>` stands.
    enum Context: Sendable, Equatable {
        /// Anywhere in the page's body or head.
        case plain
        /// Inside a `<picture>`.
        case inPicture(Picture)
        /// Inside a `<template>`: not rendered until a script clones it.
        case inTemplate
    }

    /// From the tag's `<` to its `>`.
    var tag: Range<Int>
    /// Every attribute, in the order written (a repeated name counts once in HTML: the first).
    var attributes: [Attribute]
    /// The line the tag starts on, from 1.
    var line: Int
    var context: Context

    /// The value of the first attribute called `name`.
    func value(_ name: String) -> String? {
        attributes.first { $0.name == name }?.value
    }

    /// Where new attributes go: after the last one as written, else after the tag's name, so
    /// that a closing `/>` and an unquoted last value keep their bytes.
    var insertionPoint: Int {
        attributes.map(\.end).max() ?? (tag.lowerBound + 4)
    }
}
