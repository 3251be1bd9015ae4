import Foundation
import Testing
@testable import Thumbgen

/// HTTP dates in all three forms RFC 9110 §5.6.7 requires a recipient to read, as `Expires`
/// (freshness) and as `Last-Modified` (sent back as an IMF-fixdate `If-Modified-Since`), from
/// the test server on 127.0.0.1.
@Suite("HTTP dates: IMF-fixdate, RFC 850 and asctime")
struct HTTPDateTests {
    /// RFC 9110's own example, in each form.
    static let example = 784_111_777.0

    @Test("The RFC's three examples read as one instant",
          arguments: ["Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                      "  Sun, 06 Nov 1994 08:49:37 GMT\t"])
    func examples(text: String) {
        #expect(HTTPDate.parse(text) == Self.example)
    }

    @Test("Malformed dates are nil",
          arguments: ["0", "", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 31 Feb 1994 08:49:37 GMT",
                      "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun Nov  6 24:49:37 1994",
                      "Funday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT extra"])
    func malformed(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test("An RFC 850 year is the latest with its two digits not over 50 years ahead")
    func twoDigitYears() throws {
        let now = try #require(HTTPDate.parse("Sun, 29 Nov 2026 00:00:00 GMT"))
        let in2076 = try #require(HTTPDate.parse("Sun, 01 Nov 2076 00:00:00 GMT"))
        #expect(HTTPDate.parse("Sunday, 01-Nov-76 00:00:00 GMT", now: now) == in2076)
        let in1977 = try #require(HTTPDate.parse("Mon, 01 Nov 1977 00:00:00 GMT"))
        #expect(HTTPDate.parse("Monday, 01-Nov-77 00:00:00 GMT", now: now) == in1977)
    }

    @Test("IMF-fixdate written reads back, over four centuries of instants")
    func roundTrip() throws {
        #expect(HTTPDate.format(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            let seconds = Double(Int.random(in: -6_000_000_000...7_000_000_000, using: &generator))
            let text = try #require(HTTPDate.format(seconds))
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
        }
    }

    /// Two runs of one row with `max_age` 0 for the server path `path`; the server's counts are
    /// those of the second run alone.
    static func twoRuns(_ path: String) async throws -> (second: Workspace.Run, counts: FaultServer.Counts) {
        let (space, server) = try HTTPCacheTests.serve()
        let first = try await HTTPCacheTests.run(space, server, [(path, 0)])
        #expect(first.status == 0, "\(first.result.stderr)")
        try server.resetCounts()
        let second = try await HTTPCacheTests.run(space, server, [(path, 0)])
        return (second, try server.counts())
    }

    @Test("An Expires in each form keeps the source fresh: the second run asks nothing",
          arguments: ["imf", "rfc850", "asctime"])
    func expires(form: String) async throws {
        let path = "/img/q.jpg?expires=3600&date_form=\(form)"
        let (second, counts) = try await Self.twoRuns(path)
        #expect(counts[path] == 0, "no request: the Expires was read")
        #expect(second.report?.row(2)?.cache == "hit")
    }

    @Test("A Last-Modified in each form is sent back as an IMF-fixdate, and the 304 reuses the body",
          arguments: ["imf", "rfc850", "asctime"])
    func lastModified(form: String) async throws {
        let path = "/img/q.jpg?no_etag=1&date_form=\(form)"
        let (second, counts) = try await Self.twoRuns(path)
        #expect(counts.conditional[path] == 1, "\(counts)")
        let since = try #require(counts.lastHeaders[path]?["If-Modified-Since"])
        #expect(HTTPDate.format(try #require(HTTPDate.parse(since))) == since, "sent as an IMF-fixdate: \(since)")
        #expect(second.report?.row(2)?.cache == "revalidated", "\(String(describing: second.report?.row(2)))")
        #expect(second.report?.row(2)?.http?.status == 304)
    }
}
