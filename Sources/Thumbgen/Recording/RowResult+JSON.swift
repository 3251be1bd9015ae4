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
            json.addObject("crop") { object in
                for (name, value) in [("height", crop.height), ("width", crop.width), ("x", crop.x), ("y", crop.y)] {
                    object.add(name, value)
                }
            }
        }
        if let error {
            json.addObject("error") { object in
                object.add("code", error.code.rawValue)
                object.add("message", error.message)
            }
        }
        if let fallback {
            json.addObject("fallback") { object in
                object.add("bytes", fallback.bytes)
                object.add("format", fallback.format.rawValue)
            }
        }
        json.add("format", format?.rawValue)
        json.add("height", height)
        if let http {
            json.addObject("http") { object in
                object.add("attempts", http.attempts)
                object.add("bytes", Int(http.bytes))
                object.add("status", http.status)
            }
        }
        json.add("id", id)
        if let ms {
            json.addObject("ms") { object in
                object.add("decode", ms.decode)
                object.add("download", ms.download)
                object.add("render", ms.render)
                object.add("write", ms.write)
            }
        }
        json.add("out", out)
        if let placeholder {
            json.addObject("placeholder") { object in
                object.add("dominant", placeholder.dominant)
                object.add("lqip", placeholder.lqip)
                object.add("thumbhash", placeholder.thumbhash)
                if placeholder.transparent == true { object.addRaw("transparent", "true") }
            }
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
