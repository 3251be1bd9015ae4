import Foundation
import Testing
@testable import Thumbgen

/// HTTP dates, read byte by byte: every IMF-fixdate exactly, anything else nil, and never a
/// trap on whatever text a server sends.
@Suite("HTTP dates")
struct HTTPDateTests {
    @Test("IMF-fixdates give their second since 1970", arguments: [
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777),
        ("Tue, 29 Feb 2000 12:00:00 GMT", 951_825_600),
        ("  Fri, 31 Dec 2038 23:59:59 GMT\t", 2_177_452_799),
    ])
    func fixdates(text: String, seconds: Double) {
        #expect(HTTPDate.parse(text) == seconds)
    }

    @Test("Anything else is not a date", arguments: [
        "", "0", "Wed, 30 Feb 2000 12:00:00 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
        "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 PST",
        "Sun, 06 Xyz 1994 08:49:37 GMT", "Sun, 0x Nov 1994 08:49:37 GMT",
    ])
    func notDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("Non-ASCII text that made DateFormatter trap is just not a date (scripts/fuzz, http-headers)")
    func fuzzFinding() {
        let bytes: [UInt8] = [0x6D, 0xD9, 0x9E, 0x2C, 0x2C, 0x2C, 0x2C, 0x2C, 0x00, 0x30, 0x00, 0x00]
        #expect(HTTPDate.parse(String(decoding: bytes, as: UTF8.self)) == nil)
        let freshness = HTTPFreshness(cacheControl: nil, expires: String(decoding: bytes, as: UTF8.self),
                                      date: nil, now: 0)
        #expect(freshness.freshFor == 0 && freshness.storable)
    }
}
