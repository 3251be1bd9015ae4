import Foundation

extension RowResult {
    /// The row's record in the report: compact JSON with sorted keys, the same document
    /// `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) makes, written by hand because
    /// Foundation's encoder cost more than the rest of a cached row's work.
    var jsonRecord: String {
        var buffer: [UInt8] = []
        appendJSON(to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Appends `jsonRecord`'s UTF-8 bytes to `buffer`, as the report writes them.
    func appendJSON(to buffer: inout [UInt8]) {
        var json = JSONObjectText(appendingTo: &buffer)
        json.add("bytes", bytes)
        json.add("cache", cache?.rawValue)
        if let crop {
            var inner = JSONObjectText()
            inner.add("height", crop.height)
            inner.add("width", crop.width)
            inner.add("x", crop.x)
            inner.add("y", crop.y)
            json.addRaw("crop", inner.text())
        }
        if let error {
            var inner = JSONObjectText()
            inner.add("code", error.code.rawValue)
            inner.add("message", error.message)
            json.addRaw("error", inner.text())
        }
        if let fallback {
            var inner = JSONObjectText()
            inner.add("bytes", fallback.bytes)
            inner.add("format", fallback.format.rawValue)
            json.addRaw("fallback", inner.text())
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
        if let placeholder {
            var inner = JSONObjectText()
            inner.add("dominant", placeholder.dominant)
            inner.add("lqip", placeholder.lqip)
            inner.add("thumbhash", placeholder.thumbhash)
            if placeholder.transparent == true { inner.addRaw("transparent", "true") }
            json.addRaw("placeholder", inner.text())
        }
        json.add("plan", plan?.rawValue)
        json.add("row", row)
        json.add("sha256", sha256)
        if let source { json.addRaw("source", source.jsonRecord) }
        json.add("source_sha256", sourceSHA256)
        json.add("src", src)
        json.add("status", status.rawValue)
        json.add("warm", warm?.rawValue)
        json.add("width", width)
        json.finish(into: &buffer)
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
