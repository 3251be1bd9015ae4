import Foundation

/// What a page shows in an image's place while the image loads, made from the pixels of one
/// of its source's outputs (the smallest its render made): three kinds, each small enough to
/// inline in HTML.
public struct Placeholder: Sendable, Equatable, Hashable {
    /// The colour most of the image is near (opaque pixels only), as `#rrggbb`.
    public var dominant: String
    /// A ThumbHash of the image (`ThumbHash`), its bytes.
    public var thumbHash: [UInt8]
    /// A tiny blurred WebP of the image, its bytes (`dataURI` is under 400 characters).
    public var lqip: [UInt8]

    /// Makes a placeholder from its three parts.
    public init(dominant: String, thumbHash: [UInt8], lqip: [UInt8]) {
        self.dominant = dominant; self.thumbHash = thumbHash; self.lqip = lqip
    }

    /// Whether any pixel the placeholder was made from is not wholly opaque (ThumbHash's own
    /// flag, bit 23 of its header): a background drawn behind such an image would show through.
    public var hasAlpha: Bool { thumbHash.count > 2 && thumbHash[2] & 0x80 != 0 }

    /// The ThumbHash in base64, as ThumbHash's own decoders take it.
    public var thumbHashBase64: String { Data(thumbHash).base64EncodedString() }
    /// The LQIP as a `data:image/webp;base64,` URI, for `src` or a CSS `url()`.
    public var dataURI: String { "data:image/webp;base64," + Data(lqip).base64EncodedString() }

    /// The form a cache record holds: `#rrggbb`, the ThumbHash and the LQIP in base64, with a
    /// space between.
    public var stored: String {
        dominant + " " + thumbHashBase64 + " " + Data(lqip).base64EncodedString()
    }

    /// Reads `stored`'s form; nil for anything else.
    public init?(stored: String) {
        let parts = stored.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 7, parts[0].first == "#",
              parts[0].dropFirst().allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
              let hash = Data(base64Encoded: String(parts[1])), !hash.isEmpty,
              let lqip = Data(base64Encoded: String(parts[2])), !lqip.isEmpty else { return nil }
        self.init(dominant: String(parts[0]), thumbHash: [UInt8](hash), lqip: [UInt8](lqip))
    }
}

/// The kinds of placeholder a run reports (`--placeholders`).
public enum PlaceholderKind: String, Sendable, CaseIterable, Codable {
    /// `#rrggbb`.
    case dominant
    /// A data URI of a tiny blurred WebP.
    case lqip
    /// A ThumbHash in base64.
    case thumbhash

    /// What a run reports when not told: a colour and a preview, which need no script to show.
    public static let defaults: Set<PlaceholderKind> = [.dominant, .lqip]

    /// Parses `--placeholders`: `none`, or kinds separated by commas; nil (with the bad word in
    /// `rejected`) for anything else.
    public static func parseList(_ text: String, rejected: inout String?) -> Set<PlaceholderKind>? {
        let words = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if words == ["none"] { return [] }
        var kinds: Set<PlaceholderKind> = []
        for word in words {
            guard let kind = PlaceholderKind(rawValue: word) else { rejected = word; return nil }
            kinds.insert(kind)
        }
        if kinds.isEmpty { rejected = text; return nil }
        return kinds
    }
}

/// A placeholder as the report and the index give it: the kinds the run asked for.
public struct PlaceholderFields: Sendable, Equatable, Codable {
    /// Whether the image has transparency (then markup draws no placeholder behind it).
    public var transparent: Bool?
    /// `#rrggbb`.
    public var dominant: String?
    /// A `data:image/webp;base64,` URI.
    public var lqip: String?
    /// Base64.
    public var thumbhash: String?

    /// The fields of `placeholder` that `kinds` names; nil when it names none.
    public init?(_ placeholder: Placeholder, kinds: Set<PlaceholderKind>) {
        guard !kinds.isEmpty else { return nil }
        dominant = kinds.contains(.dominant) ? placeholder.dominant : nil
        lqip = kinds.contains(.lqip) ? placeholder.dataURI : nil
        thumbhash = kinds.contains(.thumbhash) ? placeholder.thumbHashBase64 : nil
        transparent = placeholder.hasAlpha ? true : nil
    }
}
