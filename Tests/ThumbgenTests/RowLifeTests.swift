import Foundation
import Synchronization
import Testing
@testable import Thumbgen

/// A row's life as the executor keeps it (`Job.advance`): stages in order, one end, and what
/// the stages said carried into the result.
@Suite("A row's life: one state machine, one end")
struct RowLifeTests {
    /// A job for one URL row, with the results it hands on and the events it says.
    final class Harness: Sendable {
        /// What the job handed on and said.
        final class Log: Sendable {
            let ended = Mutex<[RowResult]>([])
            let events = Mutex<[String]>([])
        }
        let log = Log()
        var ended: [RowResult] { log.ended.withLock { $0 } }
        var events: [String] { log.events.withLock { $0 } }
        let job: Job

        init(mode: RunMode = .cache) {
            let request = ThumbnailRequest(row: 3, id: "3", sourceText: "http://127.0.0.1/a.jpg",
                                           source: .url(URL(string: "http://127.0.0.1/a.jpg")!),
                                           outTemplate: "a.webp", spec: ThumbnailSpec())
            let log = log
            job = Job(request: request, plan: RowPlan(action: .fetch, step: .fetch, origin: .fetched), mode: mode,
                      onEvent: { event in
                          if case .loaded(_, let source, _) = event { log.events.withLock { $0.append("loaded \(source.format)") } }
                      },
                      onFinish: { _, result in log.ended.withLock { $0.append(result) } })
        }
    }

    static let http = RowResult.HTTPInfo(status: 200, bytes: 1234, attempts: 2)
    static let source = RowResult.SourceInfo(bytes: 1234, width: 640, height: 480, format: "jpeg", frames: 1)

    static func written() -> RowResult {
        var result = RowResult(row: 3, id: "3", src: "http://127.0.0.1/a.jpg", status: .written)
        result.out = "a.webp"
        return result
    }

    @Test("Stages are passed in order, a late word never moves a row back, and the result carries what each said")
    func stagesInOrder() {
        let harness = Harness()
        let job = harness.job
        #expect(job.stage == .planned)
        job.advance(.fetched(Self.http))
        #expect(job.stage == .fetched)
        job.advance(.identified(.fetched, digest: "ab12"))
        #expect(job.stage == .identified)
        job.advance(.fetched(nil))
        #expect(job.stage == .identified)
        job.advance(.loaded(Self.source, decode: 1))
        #expect(job.stage == .identified)
        #expect(harness.events == ["loaded jpeg"])
        job.advance(.rendered)
        #expect(job.stage == .rendered)
        #expect(harness.ended.isEmpty)

        job.advance(.written(Self.written()))
        #expect(job.stage == .recorded)
        let results = harness.ended
        #expect(results.count == 1)
        #expect(results.first?.status == .written)
        #expect(results.first?.http == Self.http)
        #expect(results.first?.source == Self.source)
        #expect(results.first?.sourceSHA256 == "ab12")
        #expect(results.first?.cache == .miss)
    }

    @Test("A failure ends the row at whatever stage it is: once, as failed, or as cancelled for a cancel")
    func oneEnd() {
        let failing = Harness()
        failing.job.advance(.fetched(Self.http))
        failing.job.advance(.failed(ThumbnailFailure(.httpError, "http://127.0.0.1/a.jpg: 404")))
        failing.job.advance(.failed(.cancelled("http://127.0.0.1/a.jpg")))
        failing.job.advance(.written(Self.written()))
        failing.job.advance(.rendered)
        let results = failing.ended
        #expect(results.map(\.status) == [.failed])
        #expect(results.first?.error?.code == .httpError)
        #expect(results.first?.http == Self.http)
        #expect(failing.job.stage == .recorded)

        let cancelled = Harness()
        cancelled.job.advance(.identified(.local, digest: nil))
        cancelled.job.advance(.failed(.cancelled("http://127.0.0.1/a.jpg")))
        #expect(cancelled.ended.map(\.status) == [.cancelled])
        #expect(cancelled.ended.first?.error?.code == .cancelled)
    }

    @Test("Once the row's file is in place, only the write's own result ends it")
    func placedRowEndsByItsWrite() {
        let harness = Harness()
        harness.job.advance(.rendered)
        #expect(harness.job.place { true } == true)
        harness.job.advance(.failed(ThumbnailFailure(.timeout, "late deadline")))
        #expect(harness.ended.isEmpty)
        #expect(harness.job.stage == .rendered)
        harness.job.advance(.written(Self.written()))
        #expect(harness.ended.map(\.status) == [.written])
    }

    @Test("A row served from the cache after it moved on is reported as a hit")
    func servedFromTheCache() {
        let harness = Harness(mode: .warm)
        let before = harness.job.generation
        harness.job.advance(.identified(.revalidated, digest: "cd34"))
        harness.job.moveOn(fromCache: true)
        #expect(harness.job.generation == before + 1)
        harness.job.advance(.written(Self.written()))
        let result = harness.ended.first
        #expect(result?.cache == .revalidated)
        #expect(result?.warm == .revalidated)
    }
}
