import Foundation
import Testing
@testable import Thumbgen

/// Every libcurl option thumbgen sets is checked: one that libcurl refuses fails the row with
/// `fetch_setup_failed`, naming it, before any request is sent. The address guard (libcurl 7.80's
/// `CURLOPT_PREREQFUNCTION`) is needed unless `--allow-private-network` is given; the protocol
/// restriction always is (7.85's `CURLOPT_PROTOCOLS_STR`, else the older bitmask).
///
/// The transfer loop's connection limits (`CURLMOPT_*`, libcurl 7.30) are checked the same way.
///
/// This machine's libcurl has every option, so the tests run a `Pipeline` in process whose
/// `FetchPolicy.refusals` (`CurlRefusals`) name the options thumbgen's setopt wrappers answer
/// `CURLE_UNKNOWN_OPTION` (`CURLM_UNKNOWN_OPTION`) for, as an older libcurl would; `doctor`'s
/// report is built in process the same way.
@Suite("Fetching: libcurl options that cannot be set")
struct CurlSafeguardTests {
    /// A workspace whose JPEG the server serves.
    static func serve() throws -> (Workspace, FaultServer) {
        let space = try Workspace("curl-options")
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        return (space, try FaultServer(root: space.folder.url))
    }

    /// Runs rows of `paths` on the server (row 2 onwards, 32 px PNGs, as the CLI numbers them)
    /// through a pipeline whose libcurl refuses `refusals`; returns the results by row.
    static func run(_ space: Workspace, _ server: FaultServer, _ paths: [String], refusing refusals: CurlRefusals,
                    allowPrivateNetwork: Bool = false) throws -> [Int: RowResult] {
        var configuration = PipelineConfiguration(outputDirectory: space.out)
        configuration.cache = try ThumbnailCache(directory: space.cache)
        configuration.fetch.retries = 2
        configuration.fetch.totalTimeout = 10
        configuration.fetch.connectTimeout = 2
        configuration.fetch.allowPrivateNetwork = allowPrivateNetwork
        configuration.fetch.refusals = refusals
        let collector = ResultCollector()
        let pipeline = try Pipeline(configuration: configuration, onResult: collector.add)
        var spec = ThumbnailSpec()
        spec.box = TargetBox(width: 32, height: 32)
        for (offset, path) in paths.enumerated() {
            let url = try #require(URL(string: server.url(path)))
            pipeline.submit(ThumbnailRequest(row: offset + 2, id: String(offset + 2), sourceText: url.absoluteString,
                                             source: .url(url), outTemplate: "r\(offset).png", spec: spec))
        }
        pipeline.waitUntilFinished()
        return Dictionary(uniqueKeysWithValues: collector.all.map { ($0.row, $0) })
    }

    @Test("Without the address guard, a URL row fails before any request, naming the guard and both fixes")
    func guardMissing() throws {
        let (space, server) = try Self.serve()
        let rows = try Self.run(space, server, ["/img/q.jpg"], refusing: CurlRefusals(easy: [.prereqFunction]))
        let row = try #require(rows[2])
        #expect(row.status == .failed)
        #expect(row.error?.code == .fetchSetupFailed, "\(String(describing: row.error))")
        // The message the report and standard error show.
        let message = row.error?.message ?? ""
        for part in ["CURLOPT_PREREQFUNCTION", "address guard", "7.80", "--allow-private-network"] {
            #expect(message.contains(part), "\(part) in \(message)")
        }
        #expect(row.http == nil || row.http?.attempts == 0, "\(String(describing: row.http))")
        #expect(try server.counts().total == 0, "a request reached the server")
    }

    @Test("With --allow-private-network the guard is not needed: the same row is fetched")
    func guardNotNeeded() throws {
        let (space, server) = try Self.serve()
        let rows = try Self.run(space, server, ["/img/q.jpg"], refusing: CurlRefusals(easy: [.prereqFunction]),
                                allowPrivateNetwork: true)
        #expect(rows[2]?.status == .written, "\(String(describing: rows[2]?.error))")
        #expect(try server.counts()["/img/q.jpg"] == 1)
    }

    @Test("Without CURLOPT_PROTOCOLS_STR the older bitmask restricts protocols: a redirect to ftp is still refused")
    func protocolFallback() throws {
        let (space, server) = try Self.serve()
        // libcurl 7.88 follows a redirect to ftp:// by default (and would wait here for an FTP
        // greeting until the connect timeout); thumbgen's restriction refuses it at once.
        let target = try #require("ftp://127.0.0.1:\(server.port)/x"
            .addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let ftp = "/redirect-to?url=" + target
        let rows = try Self.run(space, server, ["/img/q.jpg", ftp],
                                refusing: CurlRefusals(easy: [.protocolsStr, .redirProtocolsStr]),
                                allowPrivateNetwork: true)
        #expect(rows[2]?.status == .written, "\(String(describing: rows[2]?.error))")
        let refused = try #require(rows[3])
        #expect(refused.status == .failed)
        // libcurl's own words (the row's source names ftp too, percent-encoded).
        #expect(refused.error?.message.contains("\"ftp\" not supported or disabled") == true,
                "\(String(describing: refused.error))")
        let counts = try server.counts()
        #expect(counts.total == 2, "\(counts.requests)")  // the image, and the redirect
    }

    @Test("Without any protocol restriction nothing is fetched, even with --allow-private-network")
    func protocolsMissing() throws {
        let (space, server) = try Self.serve()
        let rows = try Self.run(space, server, ["/img/q.jpg"], refusing: CurlRefusals(easy: [.protocolsStr, .protocols]),
                                allowPrivateNetwork: true)
        let row = try #require(rows[2])
        #expect(row.status == .failed)
        #expect(row.error?.code == .fetchSetupFailed, "\(String(describing: row.error))")
        #expect(row.error?.message.contains("CURLOPT_PROTOCOLS") == true, "\(String(describing: row.error))")
        #expect(try server.counts().total == 0, "a request reached the server")
    }

    @Test("A connection limit libcurl refuses fails the URL row before any request, naming the limit")
    func connectionLimitRefused() throws {
        let (space, server) = try Self.serve()
        let rows = try Self.run(space, server, ["/img/q.jpg"], refusing: CurlRefusals(multi: [.maxHostConnections]),
                                allowPrivateNetwork: true)
        let row = try #require(rows[2])
        #expect(row.status == .failed)
        #expect(row.error?.code == .fetchSetupFailed, "\(String(describing: row.error))")
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

    /// `doctor`'s report, built as the command builds it, with libcurl refusing `refusals`; and
    /// its libcurl object decoded from the JSON `--json` prints.
    static func doctor(refusing refusals: CurlRefusals) throws -> (DoctorReport, DoctorCurl) {
        try VipsRuntime.start()
        let report = DoctorReport(vips: try VipsCapabilities.current(), curl: CurlVersion.probed(refusing: refusals),
                                  limits: ImagingLimits())
        return (report, try JSONDecoder().decode(DoctorCurl.self, from: Data(report.json().utf8)))
    }

    /// What `doctor` names as missing of libcurl's safeguards (it prints them and exits 1), once
    /// checked to be in the whole list it acts on.
    static func missingSafeguards(_ report: DoctorReport, allowPrivateNetwork: Bool = false) -> [String] {
        let missing = report.curl.missingSafeguards(allowPrivateNetwork: allowPrivateNetwork)
        let all = report.missing(allowPrivateNetwork: allowPrivateNetwork)
        #expect(missing.allSatisfy(all.contains), "\(all)")
        return missing
    }

    @Test("doctor says whether the address guard and the protocol restriction can be installed, and names what is missing")
    func doctorReports() throws {
        let (healthy, healthyCurl) = try Self.doctor(refusing: CurlRefusals())
        #expect(healthyCurl.libcurl.address_guard && healthyCurl.libcurl.protocol_restriction)
        #expect(Self.missingSafeguards(healthy).isEmpty)

        let (noGuard, withoutGuard) = try Self.doctor(refusing: CurlRefusals(easy: [.prereqFunction]))
        #expect(!withoutGuard.libcurl.address_guard && withoutGuard.libcurl.protocol_restriction)
        let guardMissing = Self.missingSafeguards(noGuard).joined(separator: ", ")
        #expect(guardMissing.contains("address guard") && guardMissing.contains("7.80"), "\(guardMissing)")

        // A run with --allow-private-network does not need the guard, so neither does its doctor.
        #expect(Self.missingSafeguards(noGuard, allowPrivateNetwork: true).isEmpty)

        let (noProtocols, withoutProtocols) = try Self.doctor(refusing: CurlRefusals(easy: [.protocolsStr, .protocols]))
        #expect(withoutProtocols.libcurl.address_guard && !withoutProtocols.libcurl.protocol_restriction)
        let protocolsMissing = Self.missingSafeguards(noProtocols).joined(separator: ", ")
        #expect(protocolsMissing.contains("protocol restriction"), "\(protocolsMissing)")

        let lines = noGuard.text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains { $0.hasPrefix("address guard no") }, "\(noGuard.text)")
        #expect(lines.contains { $0.hasPrefix("protocol restriction yes") }, "\(noGuard.text)")
    }
}
