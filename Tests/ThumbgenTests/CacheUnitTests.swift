import Foundation
import Testing
@testable import Thumbgen

/// The cache's pure parts: where it lives, HTTP freshness, records, keys, temporary names.
@Suite("Cache: rules and formats")
struct CacheUnitTests {
    @Test("The directory: THUMBGEN_CACHE_DIR, else XDG_CACHE_HOME/thumbgen, else ~/.cache/thumbgen")
    func defaultDirectory() {
        #expect(ThumbnailCache.defaultDirectory(environment: [
            "THUMBGEN_CACHE_DIR": "/x/c", "XDG_CACHE_HOME": "/xdg", "HOME": "/h"]).path == "/x/c")
        #expect(ThumbnailCache.defaultDirectory(environment: [
            "XDG_CACHE_HOME": "/xdg", "HOME": "/h"]).path == "/xdg/thumbgen")
        // A relative XDG_CACHE_HOME is invalid by the XDG spec and ignored.
        #expect(ThumbnailCache.defaultDirectory(environment: [
            "XDG_CACHE_HOME": "rel", "HOME": "/h"]).path == "/h/.cache/thumbgen")
        #expect(ThumbnailCache.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.cache/thumbgen")
    }

    @Test("Freshness from Cache-Control and Expires", arguments: [
        // cache-control, expires, date, storable, fresh for
        ("max-age=600", nil, nil, true, 600.0),
        ("public, max-age=\"60\"", nil, nil, true, 60.0),
        ("no-cache, max-age=600", nil, nil, true, 0.0),
        ("no-store", nil, nil, false, 0.0),
        ("max-age=-5", nil, nil, true, 0.0),
        (nil, "Thu, 01 Jan 1970 01:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", true, 3600.0),
        ("max-age=10", "Thu, 01 Jan 1970 01:00:00 GMT", nil, true, 10.0),  // max-age wins
        (nil, "0", nil, true, 0.0),                                         // invalid Expires
        (nil, nil, nil, true, 0.0),
    ] as [(String?, String?, String?, Bool, Double)])
    func freshness(cacheControl: String?, expires: String?, date: String?, storable: Bool, freshFor: Double) {
        let f = HTTPFreshness(cacheControl: cacheControl, expires: expires, date: date, now: 100)
        #expect(f.storable == storable)
        #expect(f.freshFor == freshFor)
    }

    @Test("A row's max_age > 0 overrides the headers; 0 goes by them; a clock gone back is stale")
    func recordFreshness() {
        let record = URLRecord(url: "u", digest: String(repeating: "a", count: 64), etag: "\"e\"",
                               lastModified: nil, storedAt: 1000, freshFor: 60)
        #expect(record.isFresh(maxAge: 0, now: 1059))
        #expect(!record.isFresh(maxAge: 0, now: 1060))
        #expect(record.isFresh(maxAge: 3600, now: 4599))
        #expect(!record.isFresh(maxAge: 10, now: 1011))
        #expect(!record.isFresh(maxAge: 0, now: 999))
    }

    @Test("Records round-trip any text and refuse a flipped byte or a torn end")
    func records() throws {
        var record = CacheRecord()
        record["url"] = "http://x/a b\tc\nd\\e\r\nf"
        record["etag"] = "W/\"ü\""
        let bytes = record.encoded
        #expect(CacheRecord(decoding: bytes) == record)
        #expect(CacheRecord(decoding: bytes)?["url"] == "http://x/a b\tc\nd\\e\r\nf")
        for index in [0, 20, bytes.count - 10] {
            var damaged = bytes
            damaged[index] ^= 0x01
            #expect(CacheRecord(decoding: damaged) == nil, "flipped byte \(index)")
        }
        #expect(CacheRecord(decoding: Array(bytes.dropLast(3))) == nil)
        #expect(CacheRecord(decoding: []) == nil)
    }

    @Test("Output keys change with everything that changes bytes, and nothing else")
    func outputKeys() throws {
        let source = String(repeating: "b", count: 64)
        func key(strictness: DecodeStrictness = .error, _ change: (inout ThumbnailRequest) -> Void) -> String {
            var request = ThumbnailRequest(row: 2, id: "a", sourceText: "a.png", source: .file("/a.png"),
                                           outTemplate: "{name}.{ext}", spec: ThumbnailSpec())
            change(&request)
            return OutputKey.make(sourceDigest: source, request: request, strictness: strictness)
        }
        let base = key { _ in }
        #expect(key { $0.row = 9; $0.id = "z"; $0.priority = .high; $0.maxAge = 5 } == base)
        #expect(key { $0.outTemplate = "other/{name}.{ext}" } == base)
        #expect(key { $0.outTemplate = "{name}.webp" } != base)          // auto: decides the format
        #expect(key { $0.spec.quality = 50 } != base)
        #expect(key { $0.spec.fit = .cover } != base)
        #expect(key { $0.spec.background = RGBAColor(red: 0, green: 0, blue: 0, alpha: 255) } != base)
        #expect(key { $0.spec.animated = true } != base)
        #expect(key { $0.spec.encoding.webpEffort = 6 } != base)
        #expect(key { $0.spec.encoding.jpegProgressive = true } != base)
        #expect(key { $0.spec.shrinkOnLoad = .exact } != base)
        #expect(key { $0.spec.shrinkOnLoad = .fast } != key { $0.spec.shrinkOnLoad = .exact })
        #expect(key(strictness: .none) { _ in } != base)
        // A fixed format's key holds only its own encoder flag, and animation only if it can.
        let jpeg = key { $0.spec.format = .fixed(.jpeg) }
        #expect(key { $0.spec.format = .fixed(.jpeg); $0.spec.encoding.webpEffort = 6 } == jpeg)
        #expect(key { $0.spec.format = .fixed(.jpeg); $0.spec.animated = true } == jpeg)
        #expect(key { $0.spec.format = .fixed(.jpeg); $0.spec.encoding.jpegProgressive = true } != jpeg)
        #expect(key { $0.spec.format = .fixed(.gif); $0.spec.animated = true } != key { $0.spec.format = .fixed(.gif) })
        #expect(OutputKey.make(sourceDigest: String(repeating: "c", count: 64),
                               request: ThumbnailRequest(row: 2, id: "a", sourceText: "a.png",
                                                         source: .file("/a.png"), outTemplate: "{name}.{ext}",
                                                         spec: ThumbnailSpec()), strictness: .error) != base)
    }

    @Test("Temporary names: only the locked form is one; 0.2.0's host-and-pid names and look-alikes are not")
    func temporaryNames() {
        let name = TemporaryName.locked(for: "a.png")
        #expect(name.hasPrefix(".a.png.tg-") && name.hasSuffix(".tmp"))
        #expect(TemporaryName.isTemporary(name))
        #expect(TemporaryName.isTemporary(".a.tg-b.png.tg-0123456789abc.tmp"))  // the last marker counts
        #expect(!TemporaryName.isTemporary(".a.png.tg-0a1b2c3d-4242-x.tmp"))  // thumbgen 0.2.0's form
        #expect(!TemporaryName.isTemporary(".a.png.tg-0123456789ab.tmp"))  // twelve digits
        #expect(!TemporaryName.isTemporary(".a.png.tg-0123456789ABC.tmp"))  // not lower case
        #expect(!TemporaryName.isTemporary("a.png.tg-0123456789abc.tmp"))  // not hidden
        #expect(!TemporaryName.isTemporary(".a.png.tmp"))
        #expect(!TemporaryName.isTemporary("a.png"))
    }
}

/// The report's hand-written row records say what `RowResult`'s `Codable` form says.
@Suite("Report: row records")
struct RowRecordTests {
    @Test("A hand-written record decodes to the same RowResult, every field and escape included")
    func roundTrip() throws {
        var full = RowResult(row: 7, id: "a \"quoted\"\tid\n", src: "dir/ü/\u{1}b.jpg", status: .written,
                             out: "x/y.png", width: 12, height: 34, bytes: 5678,
                             sha256: String(repeating: "f", count: 64), format: .png)
        full.ms = RowResult.StageTimes(download: 1.5, decode: 2, render: 0.25, write: nil)
        full.http = RowResult.HTTPInfo(status: 304, bytes: 0, attempts: 2)
        full.cache = .revalidated
        full.sourceSHA256 = String(repeating: "0", count: 64)
        full.warm = .fetched
        var failed = RowResult.failed(row: 3, id: "3", src: "c.png",
                                      ThumbnailFailure(.decodeFailed, "c.png: broken \\ data"))
        failed.cache = nil
        for result in [full, failed] {
            let decoded = try JSONDecoder().decode(RowResult.self, from: Data(result.jsonRecord.utf8))
            #expect(decoded == result)
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(result.jsonRecord.utf8)) as? [String: Any]).keys
            let encoder = JSONEncoder()
            let reference = try #require(try JSONSerialization.jsonObject(with: encoder.encode(result)) as? [String: Any]).keys
            #expect(Set(keys) == Set(reference))
        }
    }
}
