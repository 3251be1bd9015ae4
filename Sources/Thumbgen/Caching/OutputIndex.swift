import Foundation

/// What the cache knows of one rendered output: its bytes (a blob) and what the report needs.
struct OutputRecord: Sendable, Equatable {
    /// The SHA-256 of the encoded bytes: the blob's name.
    var sha256: String
    var width: Int
    var height: Int
    var format: OutputFormat
    var bytes: Int
}

/// Output records by output key.
struct OutputIndex: Sendable {
    let layout: CacheLayout

    /// The record for `key`, or nil when there is none or it is damaged (then it is removed).
    func record(_ key: String) -> OutputRecord? {
        let path = layout.path(.outputs, key)
        guard let (bytes, _) = layout.read(path) else { return nil }
        guard let record = CacheRecord(decoding: bytes).flatMap(Self.decode) else {
            layout.remove(path)
            return nil
        }
        return record
    }

    /// The output record `entry` holds, or nil when a field is missing or malformed.
    static func decode(_ entry: CacheRecord) -> OutputRecord? {
        guard let sha = entry["sha256"], ContentDigest.isValid(sha),
              let width = entry["width"].flatMap(Int.init),
              let height = entry["height"].flatMap(Int.init),
              let format = entry["format"].flatMap(OutputFormat.init(rawValue:)),
              let size = entry["bytes"].flatMap(Int.init) else { return nil }
        return OutputRecord(sha256: sha, width: width, height: height, format: format, bytes: size)
    }

    /// Stores `record` under `key` (replacing any).
    func store(_ record: OutputRecord, key: String) {
        var entry = CacheRecord()
        entry["sha256"] = record.sha256
        entry["width"] = String(record.width)
        entry["height"] = String(record.height)
        entry["format"] = record.format.rawValue
        entry["bytes"] = String(record.bytes)
        layout.write(entry.encoded, to: layout.path(.outputs, key))
    }

    /// Forgets `key` (its blob was found damaged).
    func remove(_ key: String) {
        layout.remove(layout.path(.outputs, key))
    }
}

/// The key an output is stored under: a digest over everything that can change its bytes.
///
/// That is the source's content (its digest, not its name), the recipe (`ThumbnailSpec`'s
/// identifier, which carries thumbgen's `recipeVersion`), the `out` extension when the format
/// is `auto` (it can decide the format), and the libvips version (a new libvips may resample or
/// encode differently). The priority, `id`, `max_age` and the output's path change nothing in
/// the bytes and stay out.
enum OutputKey {
    /// The key for `request` over a source whose digest is `sourceDigest`, decoded with
    /// `strictness`. Strictness is in the key because it decides whether a damaged source
    /// gives an output at all (a grey-filled one under `none`); the other limits only refuse
    /// work, and serving a stored output costs none.
    static func make(sourceDigest: String, request: ThumbnailRequest,
                     strictness: DecodeStrictness) -> String {
        var text = "thumbgen-output-key 1\nsource " + sourceDigest + "\nspec " + request.spec.identifier
            + "\ndecode " + strictness.rawValue
        if case .auto = request.spec.format {
            text += "\nout-ext " + (request.outTemplate as NSString).pathExtension.lowercased()
        }
        text += "\nlibvips " + VipsRuntime.version + "\n"
        return ContentDigest.of(text: text)
    }
}
