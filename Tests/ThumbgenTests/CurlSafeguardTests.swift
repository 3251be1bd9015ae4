import Foundation
import Testing

/// Every libcurl option thumbgen sets is checked: one that libcurl refuses fails the row with
/// `fetch_setup_failed`, naming it, before any request is sent. The address guard (libcurl 7.80's
/// `CURLOPT_PREREQFUNCTION`) is needed unless `--allow-private-network` is given; the protocol
/// restriction always is (7.85's `CURLOPT_PROTOCOLS_STR`, else the older bitmask).
///
/// The transfer loop's connection limits (`CURLMOPT_*`, libcurl 7.30) are checked the same way.
///
/// This machine's libcurl has every option, so the tests make one fail with the test-only
/// `THUMBGEN_FAULT_CURL_OPTION`, which makes thumbgen's setopt wrappers answer
/// `CURLE_UNKNOWN_OPTION` (`CURLM_UNKNOWN_OPTION`) for the options it names, as an older
/// libcurl would.
@Suite("Fetching: libcurl options that cannot be set")
struct CurlSafeguardTests {
    /// A workspace whose JPEG the server serves.
    static func serve() throws -> (Workspace, FaultServer) {
        let space = try Workspace("curl-options")
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        return (space, try FaultServer(root: space.folder.url))
    }

    /// Runs a manifest of `paths` on the server, with libcurl refusing `failing` (comma-separated
    /// option names, `CURLOPT_` optional) and `extra` flags; returns the run and its report.
    static func run(_ space: Workspace, _ server: FaultServer, _ paths: [String], failing: String,
                    _ extra: [String] = []) async throws -> (CLIResult, Report) {
        let manifest = try space.folder.write(
            CSV.manifest(["src", "out"], paths.enumerated().map { [server.url($0.element), "r\($0.offset).png"] }),
            to: "manifest.csv")
        let report = space.reportURL
        try? FileManager.default.removeItem(at: report)
        let result = try await CLIRunner.run(
            [manifest.path, "--out", space.out.path, "--report", report.path, "--size", "32",
             "--retries", "2", "--timeout", "10", "--connect-timeout", "2"] + extra,
            cacheDirectory: space.cache, environment: ["THUMBGEN_FAULT_CURL_OPTION": failing])
        return (result, try Report.read(report))
    }

    @Test("Without the address guard, a URL row fails before any request, naming the guard and both fixes")
    func guardMissing() async throws {
        let (space, server) = try Self.serve()
        let (result, report) = try await Self.run(space, server, ["/img/q.jpg"], failing: "PREREQFUNCTION")
        #expect(result.status == 1, "\(result.stderr)")
        let row = try #require(report.row(2))
        #expect(row.status == "failed")
        #expect(row.error?.code == "fetch_setup_failed", "\(String(describing: row.error))")
        let message = row.error?.message ?? ""
        for part in ["CURLOPT_PREREQFUNCTION", "address guard", "7.80", "--allow-private-network"] {
            #expect(message.contains(part), "\(part) in \(message)")
        }
        #expect(row.http == nil || row.http?.attempts == 0, "\(String(describing: row.http))")
        #expect(try server.counts().total == 0, "a request reached the server")
        #expect(result.stderr.contains("CURLOPT_PREREQFUNCTION"), "\(result.stderr)")
    }

    @Test("With --allow-private-network the guard is not needed: the same row is fetched")
    func guardNotNeeded() async throws {
        let (space, server) = try Self.serve()
        let (result, report) = try await Self.run(space, server, ["/img/q.jpg"], failing: "PREREQFUNCTION",
                                                  ["--allow-private-network"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(report.row(2)?.status == "written", "\(String(describing: report.row(2)?.error))")
        #expect(try server.counts()["/img/q.jpg"] == 1)
    }

    @Test("Without CURLOPT_PROTOCOLS_STR the older bitmask restricts protocols: a redirect to ftp is still refused")
    func protocolFallback() async throws {
        let (space, server) = try Self.serve()
        // libcurl 7.88 follows a redirect to ftp:// by default (and would wait here for an FTP
        // greeting until the connect timeout); thumbgen's restriction refuses it at once.
        let target = try #require("ftp://127.0.0.1:\(server.port)/x"
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let ftp = "/redirect-to?url=" + target
        let (result, report) = try await Self.run(space, server, ["/img/q.jpg", ftp],
                                                  failing: "PROTOCOLS_STR,REDIR_PROTOCOLS_STR",
                                                  ["--allow-private-network"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(report.row(2)?.status == "written", "\(String(describing: report.row(2)?.error))")
        let refused = try #require(report.row(3))
        #expect(refused.status == "failed")
        // libcurl's own words (the row's source names ftp too, percent-encoded).
        #expect(refused.error?.message.contains("\"ftp\" not supported or disabled") == true,
                "\(String(describing: refused.error))")
        let counts = try server.counts()
        #expect(counts.total == 2, "\(counts.requests)")  // the image, and the redirect
    }

    @Test("Without any protocol restriction nothing is fetched, even with --allow-private-network")
    func protocolsMissing() async throws {
        let (space, server) = try Self.serve()
        let (result, report) = try await Self.run(space, server, ["/img/q.jpg"],
                                                  failing: "PROTOCOLS_STR,PROTOCOLS",
                                                  ["--allow-private-network"])
        #expect(result.status == 1, "\(result.stderr)")
        let row = try #require(report.row(2))
        #expect(row.error?.code == "fetch_setup_failed", "\(String(describing: row.error))")
        #expect(row.error?.message.contains("CURLOPT_PROTOCOLS") == true, "\(String(describing: row.error))")
        #expect(try server.counts().total == 0, "a request reached the server")
    }

    @Test("A connection limit libcurl refuses fails the URL row before any request, naming the limit")
    func connectionLimitRefused() async throws {
        let (space, server) = try Self.serve()
        let (result, report) = try await Self.run(space, server, ["/img/q.jpg"],
                                                  failing: "CURLMOPT_MAX_HOST_CONNECTIONS",
                                                  ["--allow-private-network"])
        #expect(result.status == 1, "\(result.stderr)")
        let row = try #require(report.row(2))
        #expect(row.status == "failed")
        #expect(row.error?.code == "fetch_setup_failed", "\(String(describing: row.error))")
        let message = row.error?.message ?? ""
        for part in ["CURLMOPT_MAX_HOST_CONNECTIONS", "--host-connections", "7.30"] {
            #expect(message.contains(part), "\(part) in \(message)")
        }
        #expect(row.http == nil || row.http?.attempts == 0, "\(String(describing: row.http))")
        #expect(try server.counts().total == 0, "a request reached the server")
    }

    /// `doctor --json`'s libcurl object, as README names its keys.
    struct DoctorCurl: Decodable {
        struct Curl: Decodable {
            var version: String
            var address_guard: Bool
            var protocol_restriction: Bool
        }
        var libcurl: Curl
    }

    /// Runs `thumbgen doctor --json EXTRA` with libcurl refusing `failing` (none when empty).
    static func doctor(failing: String, _ extra: [String] = []) async throws -> (CLIResult, DoctorCurl) {
        let environment = failing.isEmpty ? [:] : ["THUMBGEN_FAULT_CURL_OPTION": failing]
        let result = try await CLIRunner.run(["doctor", "--json"] + extra, environment: environment,
                                             timeout: .seconds(60))
        return (result, try JSONDecoder().decode(DoctorCurl.self, from: Data(result.stdout.utf8)))
    }

    @Test("doctor says whether the address guard and the protocol restriction can be installed, and exits 1 when not")
    func doctorReports() async throws {
        let (healthy, report) = try await Self.doctor(failing: "")
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(report.libcurl.address_guard && report.libcurl.protocol_restriction)

        let (noGuard, withoutGuard) = try await Self.doctor(failing: "PREREQFUNCTION")
        #expect(noGuard.status == 1)
        #expect(!withoutGuard.libcurl.address_guard && withoutGuard.libcurl.protocol_restriction)
        #expect(noGuard.stderr.contains("address guard") && noGuard.stderr.contains("7.80"), "\(noGuard.stderr)")

        // A run with --allow-private-network does not need the guard, so neither does its doctor.
        let (allowed, _) = try await Self.doctor(failing: "PREREQFUNCTION", ["--allow-private-network"])
        #expect(allowed.status == 0, "\(allowed.stderr)")

        let (noProtocols, withoutProtocols) = try await Self.doctor(failing: "PROTOCOLS_STR,PROTOCOLS")
        #expect(noProtocols.status == 1)
        #expect(withoutProtocols.libcurl.address_guard && !withoutProtocols.libcurl.protocol_restriction)
        #expect(noProtocols.stderr.contains("protocol restriction"), "\(noProtocols.stderr)")

        let text = try await CLIRunner.run(["doctor"], environment: ["THUMBGEN_FAULT_CURL_OPTION": "PREREQFUNCTION"],
                                           timeout: .seconds(60))
        let lines = text.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains { $0.hasPrefix("address guard no") }, "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("protocol restriction yes") }, "\(text.stdout)")
    }
}
