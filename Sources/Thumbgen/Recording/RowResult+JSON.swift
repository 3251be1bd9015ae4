import Foundation

extension RowResult {
    /// The row's record in the report: compact JSON with sorted keys, the same document
    /// `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) makes, written by hand because
    /// Foundation's encoder cost more than the rest of a cached row's work.
    var jsonRecord: String {
        var json = JSONObjectText()
        json.add("bytes", bytes)
        json.add("cache", cache?.rawValue)
        if let error {
            var inner = JSONObjectText()
            inner.add("code", error.code.rawValue)
            inner.add("message", error.message)
            json.addRaw("error", inner.text())
        }
        json.add("format", format?.rawValue)
        json.add("height", height)
        if let http {
            var inner = JSONObjectText()
            inner.add("attempts", http.attempts)
            inner.add("bytes", Int(http.bytes))
            inner.add("status", http.status)
            json.addRaw("http", inner.text())
        }
        json.add("id", id)
        if let ms {
            var inner = JSONObjectText()
            inner.add("decode", ms.decode)
            inner.add("download", ms.download)
            inner.add("render", ms.render)
            inner.add("write", ms.write)
            json.addRaw("ms", inner.text())
        }
        json.add("out", out)
        json.add("plan", plan?.rawValue)
        json.add("row", row)
        json.add("sha256", sha256)
        if let source { json.addRaw("source", source.jsonRecord) }
        json.add("source_sha256", sourceSHA256)
        json.add("src", src)
        json.add("status", status.rawValue)
        json.add("warm", warm?.rawValue)
        json.add("width", width)
        return json.text()
    }
}

extension RowResult.SourceInfo {
    /// `{"bytes":…,"format":…,"frames":…,"height":…,"width":…}`.
    var jsonRecord: String {
        var json = JSONObjectText()
        json.add("bytes", Int(bytes))
        json.add("format", format)
        json.add("frames", frames)
        json.add("height", height)
        json.add("width", width)
        return json.text()
    }
}

/// A JSON object written field by field, keys in the order given (the caller sorts them);
/// absent values are left out, as `JSONEncoder` leaves out nil optionals.
struct JSONObjectText {
    /// The object so far, from its opening brace: closed by `text` (not copied into a new
    /// string, as a warm run with --report encodes every row).
    private var body: String = {
        var body = "{"
        body.reserveCapacity(384)
        return body
    }()

    /// `{...}`, the object done: its text closed in place, not copied.
    consuming func text() -> String {
        body += "}"
        return body
    }

    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        addKey(key)
        // Appended in place: a warm run with --report encodes every row.
        if value.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            body += Self.quoted(value)
        } else {
            body += "\""
            body += value
            body += "\""
        }
    }

    mutating func add(_ key: String, _ value: Int?) {
        guard let value else { return }
        addKey(key)
        body += String(value)
    }

    private mutating func addKey(_ key: String) {
        if body.utf8.count > 1 { body += "," }
        body += "\""
        body += key
        body += "\":"
    }

    mutating func add(_ key: String, _ value: Double?) {
        guard let value, value.isFinite else { return }
        addRaw(key, value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// Adds a value that is JSON text already.
    mutating func addRaw(_ key: String, _ json: String) {
        addKey(key)
        body += json
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped, the rest
    /// (slashes and non-ASCII included) as it is.
    static func quoted(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else {
            return "\"" + text + "\""
        }
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
