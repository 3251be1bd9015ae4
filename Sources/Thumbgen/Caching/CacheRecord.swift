import Foundation

/// A small named-field record as the cache stores it: text lines `name<TAB>value`, ending in a
/// checksum line, so that a damaged record (a flipped byte, a torn copy) is recognised and
/// dropped instead of believed. Values may hold any text; tab, newline and backslash are
/// escaped. A hand-written format rather than JSON: a warm run reads two records per row, and
/// Foundation's JSON coders cost more than the rest of that row's work.
struct CacheRecord: Equatable {
    /// The fields, in the order they were set.
    private(set) var fields: [(name: String, value: String)] = []

    static let magic = "thumbgen-record 1"

    init() {}

    /// The value of `name`, if set.
    subscript(name: String) -> String? {
        get { fields.first { $0.name == name }?.value }
        set {
            fields.removeAll { $0.name == name }
            if let newValue { fields.append((name, newValue)) }
        }
    }

    /// The bytes to store.
    var encoded: [UInt8] {
        var text = Self.magic + "\n"
        for (name, value) in fields { text += name + "\t" + Self.escape(value) + "\n" }
        var bytes = Array(text.utf8)
        bytes += Array(("check\t" + Self.check(bytes[...]) + "\n").utf8)
        return bytes
    }

    /// Parses stored bytes; nil when they are not a whole, undamaged record. Works on the
    /// bytes directly: a warm run parses two records per row.
    init?(decoding bytes: [UInt8]) {
        let newline = UInt8(ascii: "\n"), tab = UInt8(ascii: "\t")
        // The checksum line is the last one: everything before it is what it covers.
        guard bytes.last == newline, let lastBreak = bytes.dropLast().lastIndex(of: newline) else {
            return nil
        }
        let checkStart = lastBreak + 1
        let expected = Array("check\t".utf8) + Array(Self.check(bytes[..<checkStart]).utf8) + [newline]
        guard bytes[checkStart...].elementsEqual(expected) else { return nil }
        var lineStart = 0
        var first = true
        while lineStart < checkStart {
            guard let end = bytes[lineStart..<checkStart].firstIndex(of: newline) else { return nil }
            let line = bytes[lineStart..<end]
            lineStart = end + 1
            if first {
                guard line.elementsEqual(Self.magic.utf8) else { return nil }
                first = false
                continue
            }
            guard let split = line.firstIndex(of: tab) else { return nil }
            let name = String(decoding: line[..<split], as: UTF8.self)
            let value = line[(split + 1)...]
            fields.append((name, value.contains(UInt8(ascii: "\\"))
                ? Self.unescape(Substring(String(decoding: value, as: UTF8.self)))
                : String(decoding: value, as: UTF8.self)))
        }
        guard !first else { return nil }
    }

    static func == (a: CacheRecord, b: CacheRecord) -> Bool {
        a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    private static func check(_ bytes: ArraySlice<UInt8>) -> String {
        String(ContentDigest.of(bytes).prefix(16))
    }

    // Works on Unicode scalars: "\r\n" is one `Character` in Swift and would slip past a
    // character-by-character comparison.
    private static func escape(_ value: String) -> String {
        let special: Set<Unicode.Scalar> = ["\\", "\n", "\t", "\r"]
        guard value.unicodeScalars.contains(where: special.contains) else { return value }
        var out = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    private static func unescape(_ value: Substring) -> String {
        guard value.unicodeScalars.contains("\\") else { return String(value) }
        var out = String.UnicodeScalarView()
        var escaping = false
        for scalar in value.unicodeScalars {
            if escaping {
                switch scalar {
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                default: out.append(scalar)
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
