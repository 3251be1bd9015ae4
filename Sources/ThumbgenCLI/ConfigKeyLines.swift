/// The line each key of a TOML file stands on, found in its text: TOMLKit reports lines for
/// parse errors only, and a setting's error must name its line. Only what locating needs is
/// read (table headers, bare, quoted and dotted keys before `=`); multi-line strings and arrays
/// are stepped over. The file has parsed already, so it is valid TOML.
struct ConfigKeyLines {
    private var lines: [[String]: Int] = [:]

    init(_ text: String) {
        var table: [String] = []
        var inMultiline: String?
        var depth = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if let fence = inMultiline {
                if line.contains(fence) { inMultiline = nil }
                continue
            }
            if depth > 0 {
                depth += Self.balance(line)
                continue
            }
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let inner = line.drop { $0 == "[" }.prefix { $0 != "]" }
                table = Self.keyPath(String(inner))
                if lines[table] == nil { lines[table] = index + 1 }
                continue
            }
            guard let equals = Self.unquotedEquals(line) else { continue }
            let key = table + Self.keyPath(String(line[..<equals]))
            if lines[key] == nil { lines[key] = index + 1 }
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            for fence in ["\"\"\"", "'''"] where value.hasPrefix(fence) && !value.dropFirst(3).contains(fence) {
                inMultiline = fence
            }
            if inMultiline == nil { depth = max(0, Self.balance(value)) }
        }
    }

    /// The line of the key at `path` (tables, then the key), or 0 when it was not found.
    func line(of path: [String]) -> Int { lines[path] ?? 0 }

    /// `a."b.c".d` as its parts, quotes taken off.
    private static func keyPath(_ text: String) -> [String] {
        var parts: [String] = [], current = "", quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current.trimmingCharacters(in: .whitespaces))
        return parts
    }

    /// Where the `=` of a key/value line is, outside quotes.
    private static func unquotedEquals(_ line: String) -> String.Index? {
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "=" {
                return index
            }
        }
        return nil
    }

    /// Brackets opened less those closed, outside strings and comments: an array that goes on.
    private static func balance(_ text: String) -> Int {
        var count = 0, quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" {
                break
            } else if character == "[" || character == "{" {
                count += 1
            } else if character == "]" || character == "}" {
                count -= 1
            }
        }
        return count
    }
}
