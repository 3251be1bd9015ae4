import Crypto
import Foundation
import Synchronization

/// The key an output is stored under: a digest over everything that can change its bytes,
/// kept with the text it is the digest of, so that `thumbgen explain` can show its parts and
/// name the one that changed.
///
/// The parts are the source's content (its digest, not its name), the recipe (`ThumbnailSpec`'s
/// fields and thumbgen's `recipeVersion`), how strictly the source is decoded, the `out`
/// extension when the format is `auto` (it can decide the format), and the libvips version (a
/// new libvips may resample or encode differently). The priority, `id`, `max_age` and the
/// output's path change nothing in the bytes and stay out.
struct OutputKey: Sendable, Equatable {
    /// What the digest is taken of: a `name value` line per part. Put together when asked
    /// for (`explain`, the recipe history), not for every row of a warm run.
    var text: String { stored ?? (Self.header + Self.sourceLabel + source + "\n" + recipe) }
    /// The digest the output is stored under, in hex: made when asked for (a warm run's rows
    /// the journal vouches for never ask).
    var digest: String { ContentDigest.hex(digestBytes) }
    /// The same SHA-256 as 32 bytes, as the warm journal keeps it.
    let digestBytes: [UInt8]
    private let stored: String?
    private let source: String, recipe: String

    /// The key for `request` over a source whose digest is `sourceDigest`, decoded with
    /// `strictness`. Strictness is in the key because it decides whether a damaged source
    /// gives an output at all (a grey-filled one under `none`); the other limits only refuse
    /// work, and serving a stored output costs none.
    init(sourceDigest: String, request: ThumbnailRequest, strictness: DecodeStrictness) {
        var recent = RecentRecipes()
        self.init(sourceDigest: sourceDigest, request: request, strictness: strictness, recent: &recent)
    }

    /// The same key, taking the recipe's lines from `recent` when it has them (a planning
    /// thread's own memo, asked without a lock).
    init(sourceDigest: String, request: ThumbnailRequest, strictness: DecodeStrictness,
         recent: inout RecentRecipes) {
        let recipe = Self.recipe(request, strictness, recent: &recent)
        var hasher = SHA256()
        func add(_ part: String) {
            var part = part
            part.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        }
        add(Self.header)
        add(Self.sourceLabel)
        add(sourceDigest)
        add("\n")
        add(recipe)
        digestBytes = Array(hasher.finalize())
        stored = nil
        source = sourceDigest
        self.recipe = recipe
    }

    private static let sourceLabel = "source "

    /// The lines after the source's: the same for every row with the same recipe, so made
    /// once per recipe (a warm run makes a key for every row, and building the spec's
    /// identifier cost more than hashing the key).
    private static func recipe(_ request: ThumbnailRequest, _ strictness: DecodeStrictness,
                               recent: inout RecentRecipes) -> String {
        var outExtension: String?
        if case .auto = request.spec.format {
            outExtension = PathText.pathExtension(of: request.outTemplate).lowercased()
        }
        let memo = RecipeMemo(spec: request.spec, strictness: strictness, outExtension: outExtension)
        if let known = recent.text(for: memo) { return known }
        let text = recipe(memo)
        recent.note(memo, text)
        return text
    }

    /// The lines of `memo`'s recipe, from the run's memo when it has them.
    private static func recipe(_ memo: RecipeMemo) -> String {
        let (spec, strictness, outExtension) = (memo.spec, memo.strictness, memo.outExtension)
        if let known = recipes.withLock({ $0[memo] }) { return known }
        var text = "spec " + spec.identifier + "\ndecode " + strictness.rawValue
        if let outExtension { text += "\nout-ext " + outExtension }
        text += "\nlibvips " + VipsRuntime.version + "\n"
        if VipsRuntime.drawsVectors { text += "vectors drawn-to-scale\n" }
        recipes.withLock { if $0.count < 1024 { $0[memo] = text } }
        return text
    }

    /// What a recipe's lines are made of.
    struct RecipeMemo: Hashable {
        var spec: ThumbnailSpec
        var strictness: DecodeStrictness
        var outExtension: String?
    }

    /// The last few recipes one thread met, with their lines: a manifest's rows cycle through
    /// a few recipes (one per size), and comparing a spec costs less than hashing it and
    /// taking the run's lock, which every planning thread wanted for every row.
    struct RecentRecipes {
        private var entries = RecentValues<RecipeMemo, String>(capacity: 16)

        /// The lines of `memo`'s recipe, if met lately.
        mutating func text(for memo: RecipeMemo) -> String? { entries.value(for: memo) }

        /// Remembers `text` as `memo`'s lines, forgetting the oldest of more than sixteen (ten
        /// sizes in turn missed eight on every row).
        mutating func note(_ memo: RecipeMemo, _ text: String) { entries.note(memo, text) }
    }

    /// Recipes' lines by recipe; at most 1024 (a manifest's recipes are few).
    private static let recipes = Mutex<[RecipeMemo: String]>([:])

    /// The key whose text is `text` (as `text` gave it); nil for text that is not a key's.
    init?(storedText text: String) {
        guard text.hasPrefix(Self.header), text.hasSuffix("\n") else { return nil }
        self.init(text: text)
    }

    private init(text: String) {
        stored = text
        source = ""
        recipe = ""
        digestBytes = JournalFormat.raw(hex: ContentDigest.of(text: text)) ?? []
    }

    private static let header = "thumbgen-output-key 1\n"

    /// The digest for `request` over `sourceDigest`.
    static func make(sourceDigest: String, request: ThumbnailRequest, strictness: DecodeStrictness) -> String {
        OutputKey(sourceDigest: sourceDigest, request: request, strictness: strictness).digest
    }

    /// The parts, in the order they enter the digest, with the recipe split into its fields,
    /// named as the manifest's columns are where there is one: `spec v2;box=256x;fit=inside;…`
    /// becomes `recipe 2`, `size 256x`, `fit inside`, ….
    var parts: [(name: String, value: String)] {
        var parts: [(name: String, value: String)] = []
        for line in text.split(separator: "\n").dropFirst() {
            guard let space = line.firstIndex(of: " ") else { continue }
            let name = String(line[..<space]), value = line[line.index(after: space)...]
            guard name == "spec" else {
                parts.append((name, String(value)))
                continue
            }
            for field in value.split(separator: ";") {
                guard let equals = field.firstIndex(of: "=") else {
                    parts.append(("recipe", String(field.dropFirst())))  // "v2"
                    continue
                }
                let fieldName = String(field[..<equals])
                parts.append((Self.columnNames[fieldName] ?? fieldName,
                              String(field[field.index(after: equals)...])))
            }
        }
        return parts
    }

    /// The spec identifier's short names that differ from the manifest's column names.
    private static let columnNames = ["box": "size", "q": "quality", "bg": "background",
                                      "anim": "animated", "enc": "encoding",
                                      "sol": "shrink_on_load", "mob": "max_output_bytes",
                                      "turn": "rotate, flip"]

    /// The value of the part `name`.
    subscript(name: String) -> String? { parts.first { $0.name == name }?.value }

    /// The names of the parts whose values differ between `self` and `other` (a part only one
    /// of them has counts as differing), in `self`'s order.
    func changedParts(since other: OutputKey) -> [String] {
        let mine = parts, theirs = other.parts
        var names = mine.map(\.name)
        names += theirs.map(\.name).filter { !names.contains($0) }
        func value(_ name: String, in parts: [(name: String, value: String)]) -> String? {
            parts.first { $0.name == name }?.value
        }
        return names.filter { value($0, in: mine) != value($0, in: theirs) }
    }

    static func == (a: OutputKey, b: OutputKey) -> Bool { a.digestBytes == b.digestBytes }
}
