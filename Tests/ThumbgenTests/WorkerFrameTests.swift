import Foundation
import Testing
@testable import Thumbgen

/// `WorkerFrame`: every body in one encoding, a length, a JSON message and a payload.
@Suite("Worker frames: one encoding")
struct WorkerFrameTests {
    @Test("An output's message and encoded bytes come back as they went, and the wire layout is length, kind, body")
    func outputRoundTrip() throws {
        let image = Data((0..<300).map { UInt8($0 % 256) })
        let header = WorkerProtocol.Output(row: 3, width: 40, height: 30, format: .webp, decodeMs: 1.5, renderMs: 2)
        let frame = try #require(WorkerFrame.make(.output, header, payload: image))
        let back = try #require(frame.decoded(WorkerProtocol.Output.self))
        #expect(back.row == 3 && back.width == 40 && back.height == 30 && back.format == .webp)
        #expect(back.decodeMs == 1.5 && back.renderMs == 2)
        let samePayload = frame.payload == image
        #expect(samePayload)
        let wire = frame.encoded
        #expect(wire.littleEndianUInt32(at: 0) == UInt32(1 + frame.body.count))
        #expect(wire[wire.startIndex + 4] == WorkerFrame.Kind.output.rawValue)
    }

    @Test("A stage frame is JSON like every other, with no payload; a whole-unit stage has no row")
    func stageRoundTrip() throws {
        for (stage, row) in [(RenderStage.encode, Optional(7)), (.decode, nil)] {
            let frame = try #require(WorkerFrame.make(.stage, WorkerProtocol.Stage(stage: stage, row: row)))
            let back = try #require(frame.decoded(WorkerProtocol.Stage.self))
            #expect(back.stage == stage && back.row == row)
            #expect(frame.payload.isEmpty)
        }
    }

    @Test("A body whose message length runs past its end is no message and has no payload")
    func malformedBody() {
        var body = Data()
        body.appendLittleEndian(1_000)
        body.append(Data("{\"row\":1}".utf8))
        let frame = WorkerFrame(kind: .failure, body: body)
        #expect(frame.decoded(WorkerProtocol.Failure.self) == nil)
        #expect(frame.payload.isEmpty)
        #expect(WorkerFrame(kind: .done, body: Data([1, 0])).decoded(WorkerProtocol.Done.self) == nil)
    }

    /// A worker is sent each recipe once: later units name it by number, smaller on the wire,
    /// and come out of the worker's table whole; a number it was never taught breaks the unit.
    @Test("A unit's recipes go once per worker: later units name them by number and resolve to the same specs")
    func recipesByNumber() throws {
        var small = ThumbnailSpec()
        small.box = TargetBox(width: 64, height: 64)
        var large = small
        large.box = TargetBox(width: 640, height: nil)
        large.fit = .cover
        let first = WorkerProtocol.Unit(path: "/a.jpg", rows: [
            WorkerProtocol.UnitRow(index: 0, outTemplate: "{name}-64.jpg", recipe: 3, spec: small),
            WorkerProtocol.UnitRow(index: 1, outTemplate: "{name}-640.webp", recipe: 8, spec: large),
        ])
        let later = WorkerProtocol.Unit(path: "/b.jpg", rows: [
            WorkerProtocol.UnitRow(index: 0, outTemplate: "{name}-640.webp", recipe: 8, spec: nil),
            WorkerProtocol.UnitRow(index: 1, outTemplate: "{name}-64.jpg", recipe: 3, spec: nil),
        ])
        let firstFrame = try #require(WorkerFrame.make(.unit, first))
        let laterFrame = try #require(WorkerFrame.make(.unit, later))
        #expect(laterFrame.body.count * 3 < firstFrame.body.count, "\(laterFrame.body.count) against \(firstFrame.body.count)")

        var table: [Int: ThumbnailSpec] = [:]
        let taught = try #require(firstFrame.decoded(WorkerProtocol.Unit.self)?.resolved(with: &table))
        #expect(taught.rows.map(\.spec) == [small, large])
        let named = try #require(laterFrame.decoded(WorkerProtocol.Unit.self)?.resolved(with: &table))
        #expect(named.rows.map(\.spec) == [large, small])
        var fresh: [Int: ThumbnailSpec] = [:]
        #expect(later.resolved(with: &fresh) == nil, "a number the worker was never sent")
    }

    /// The parent's record of a worker's recipes: a recipe held is named by its slot, a new
    /// one takes the slot filled longest ago, and a manifest of distinct recipes never holds
    /// more than `RecipeSlots.count`.
    @Test("A worker's recipe slots: a recipe held is found, new ones fill the slots in turn, bounded")
    func recipeSlots() {
        func spec(_ width: Int) -> ThumbnailSpec {
            var spec = ThumbnailSpec()
            spec.box = TargetBox(width: width, height: nil)
            return spec
        }
        var slots = RecipeSlots()
        #expect(slots.slot(for: spec(10)) == (0, true))
        #expect(slots.slot(for: spec(20)) == (1, true))
        #expect(slots.slot(for: spec(10)) == (0, false))
        for width in 30..<(30 + RecipeSlots.count - 2) { #expect(slots.slot(for: spec(width)).isNew) }
        // Full: the next new recipe takes slot 0, and the one that was there is new again.
        #expect(slots.slot(for: spec(999)) == (0, true))
        #expect(slots.slot(for: spec(10)) == (1, true))
        #expect(slots.slot(for: spec(999)) == (0, false))
    }
}
