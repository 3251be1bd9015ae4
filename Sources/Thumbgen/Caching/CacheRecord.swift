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
        bytes += Array(("check\t" + Self.check(bytes) + "\n").utf8)
        return bytes
    }

    /// Parses stored bytes; nil when they are not a whole, undamaged record.
    init?(decoding bytes: [UInt8]) {
        // The checksum line is the last one: everything before it is what it covers.
        guard bytes.last == 10, let checkStart = bytes.dropLast().lastIndex(of: 10).map({ $0 + 1 }) else {
            return nil
        }
        let body = Array(bytes[..<checkStart])
        let checkLine = String(decoding: bytes[checkStart..<(bytes.count - 1)], as: UTF8.self)
        guard checkLine == "check\t" + Self.check(body) else { return nil }
        let lines = String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(Self.magic) else { return nil }
        for line in lines.dropFirst() where !line.isEmpty {
            guard let tab = line.firstIndex(of: "\t") else { return nil }
            fields.append((String(line[..<tab]), Self.unescape(line[line.index(after: tab)...])))
        }
    }

    static func == (a: CacheRecord, b: CacheRecord) -> Bool {
        a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }

    private static func check(_ bytes: [UInt8]) -> String {
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
