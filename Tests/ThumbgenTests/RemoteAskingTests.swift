import Foundation
import Testing
@testable import Thumbgen

/// The planner never asks the remote cache itself: where the local cache lacks an entry a
/// remote may hold, it plans `askRemote`, and the executor (`RemoteAsking`) asks, once per
/// question, then plans again. Against a real HTTP server on 127.0.0.1 that holds nothing, so
/// every question is a miss and every request is counted.
@Suite("Planning: the remote cache is asked by the executor, never by the planner")
struct RemoteAskingTests {
    /// A planner over a fresh cache whose remote is `server` (empty), writing under `folder`.
    static func planner(_ folder: TemporaryDirectory, _ server: FaultServer) throws -> (RowPlanner, RemoteCache) {
        let settings = try RemoteCacheSettings(url: server.url("/cache"), environment: [:])
        let remote = RemoteCache(settings: settings, warn: { _ in })
        let cache = try ThumbnailCache(directory: folder.file("cache"), remote: remote)
        return (RowPlanner(cache: cache, outputDirectory: folder.file("out"), limits: ImagingLimits(), offline: false),
                remote)
    }

    @Test("A URL row and an identified row: the planner asks, the executor asks once, the plan goes on")
    func plannerAsksNothing() throws {
        let folder = try TemporaryDirectory("remote-ask")
        let server = try FaultServer(root: folder.url)
        let (planner, remote) = try Self.planner(folder, server)
        defer { _ = remote.finish(waiting: false) }

        // A URL the cache has never seen: its record may be on the remote. (Only planned:
        // nothing fetches example.com.)
        let url = try #require(URL(string: "https://example.com/a.jpg"))
        let request = ThumbnailRequest(row: 2, id: "2", sourceText: url.absoluteString, source: .url(url),
                                       outTemplate: "a.jpg", spec: ThumbnailSpec())
        let first = planner.plan(request)
        #expect(first.action == .askRemote && first.remoteQuery == .url(url.absoluteString), "\(first)")
        #expect(try server.counts().total == 0, "the planner sent a request")
        let settled = RemoteAsking.plan(by: planner) { $0.plan(request) }
        #expect(settled.action == .fetch, "\(settled)")
        let afterURL = try server.counts()
        #expect(afterURL.total == 1, "\(afterURL.requests)")

        // A source whose digest is known: its output may be on the remote.
        let local = Thumbgen.SourceLocation.file(folder.file("b.png").path)
        let row = ThumbnailRequest(row: 3, id: "3", sourceText: "b.png", source: local, outTemplate: "b.png",
                                   spec: ThumbnailSpec())
        let identified = RowPlanner.Identified(digest: String(repeating: "ab", count: 32), origin: .local)
        let asking = planner.plan(row, identified: identified)
        guard case .output? = asking.remoteQuery else {
            Issue.record("no output question: \(asking)")
            return
        }
        #expect(asking.action == .askRemote && asking.key != nil)
        #expect(try server.counts().total == 1, "the planner sent a request")
        let rendered = RemoteAsking.plan(by: planner) { $0.plan(row, identified: identified) }
        #expect(rendered.action == .render && rendered.cached == .absent, "\(rendered)")
        let afterOutput = try server.counts()
        #expect(afterOutput.total == 2, "\(afterOutput.requests)")
    }
}
