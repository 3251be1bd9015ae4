import Foundation

/// The parts of a file name that `NSString`'s `lastPathComponent`, `deletingPathExtension` and
/// `pathExtension` give, without their cost (bridging to UTF-16 costs about a microsecond a
/// call, and a warm row needs several). An ordinary name is split here at its bytes: `/` and
/// `.` are ASCII, so splitting UTF-8 there is splitting the text. Anything unusual (a trailing
/// slash, a name that starts or ends with its only dot, an empty path) is left to `NSString`,
/// whose rules `PathTextTests` holds this to.
enum PathText {
    /// The last component of `path` without its extension (`/a/b.c.png` → `b.c`).
    static func stem(of path: String) -> String {
        if let (name, dot) = split(path) { return String(decoding: dot.map { name[..<$0] } ?? name, as: UTF8.self) }
        return ((path as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    /// The extension of `path`'s last component, without its dot (`b.c.png` → `png`), or "".
    static func pathExtension(of path: String) -> String {
        if let (name, dot) = split(path) { return dot.map { String(decoding: name[name.index(after: $0)...], as: UTF8.self) } ?? "" }
        return (path as NSString).pathExtension
    }

    /// The last component of `path` and the position of its extension's dot (nil: none),
    /// when the name is ordinary; nil otherwise.
    private static func split(_ path: String) -> (Substring.UTF8View, Substring.UTF8View.Index?)? {
        let bytes = Substring(path).utf8
        guard let last = bytes.last, last != UInt8(ascii: "/") else { return nil }
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map(bytes.index(after:)) ?? bytes.startIndex
        let name = bytes[start...]
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")) else { return (name, nil) }
        guard dot != name.startIndex, name.index(after: dot) != name.endIndex else { return nil }
        return (name, dot)
    }
}

extension StringProtocol {
    /// Whether `needle`'s UTF-8 bytes occur in this text: a byte search, where Foundation's
    /// `contains(_:)` goes through `NSString` (`range(of:)`) at a microsecond a call.
    func containsBytes(_ needle: String) -> Bool {
        // A scan of the text's own bytes: no array made for the needle, no generic slicing
        // (both showed in a warm run, which asks this several times a row).
        var needle = needle
        let found = utf8.withContiguousStorageIfAvailable { hay -> Bool in
            needle.withUTF8 { bytes in
                guard let start = bytes.baseAddress, !bytes.isEmpty else { return true }
                guard let base = hay.baseAddress, hay.count >= bytes.count else { return false }
                let first = start.pointee
                for offset in 0...(hay.count - bytes.count)
                where base[offset] == first && memcmp(base + offset, start, bytes.count) == 0 {
                    return true
                }
                return false
            }
        }
        return found ?? slowlyContains(needle)
    }

    /// `containsBytes` for text without contiguous UTF-8 (a bridged string).
    private func slowlyContains(_ needleText: String) -> Bool {
        let needle = Array(needleText.utf8)
        guard let first = needle.first else { return true }
        let hay = utf8
        var index = hay.startIndex
        while let found = hay[index...].firstIndex(of: first) {
            if hay[found...].starts(with: needle) { return true }
            index = hay.index(after: found)
        }
        return false
    }
}
