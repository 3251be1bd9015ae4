import Foundation
import Testing
@testable import Thumbgen

/// `WorkerFrame`: every body in one layout, a length, a message (JSON, or fields for the
/// per-row `stage` and `output`) and a payload.
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

    @Test("A stage frame carries its fields, with no payload; a whole-unit stage has no row")
    func stageRoundTrip() throws {
        for (stage, row) in [(RenderStage.encode, Optional(7)), (.decode, nil)] {
            let frame = WorkerFrame.make(.stage, WorkerProtocol.Stage(stage: stage, row: row))
            let back = try #require(frame.decoded(WorkerProtocol.Stage.self))
            #expect(back.stage == stage && back.row == row)
            #expect(frame.payload.isEmpty)
        }
    }

    /// `stage` and `output` go as fields, not JSON: every optional field comes back as sent,
    /// and a message cut short, lengthened or naming no known format is no message.
    @Test("An output's fields come back with every optional set or absent; a damaged one is refused")
    func outputFields() throws {
        let full = WorkerProtocol.Output(row: 9, width: 320, height: 213, format: .png, decodeMs: 0.25,
                                         renderMs: nil, placeholder: "thash:ab\u{00e9}", owesPlaceholder: true,
                                         cropBox: CropBox(x: 4, y: -1, width: 1_000_000, height: 7))
        let bare = WorkerProtocol.Output(row: 0, width: 1, height: 1, format: .jpeg)
        for header in [full, bare] {
            let frame = WorkerFrame.make(.output, header, payload: Data([1, 2, 3]))
            let back = try #require(frame.decoded(WorkerProtocol.Output.self))
            #expect(back.row == header.row && back.width == header.width && back.height == header.height)
            #expect(back.format == header.format && back.decodeMs == header.decodeMs && back.renderMs == header.renderMs)
            #expect(back.placeholder == header.placeholder && back.owesPlaceholder == header.owesPlaceholder)
            #expect(back.cropBox == header.cropBox)
            #expect(frame.payload == Data([1, 2, 3]))
        }
        var wire = WireWriter()
        full.write(to: &wire)
        let fields = wire.data
        func frame(_ message: Data) -> WorkerFrame {
            var body = Data()
            body.appendLittleEndian(UInt32(message.count))
            body.append(message)
            return WorkerFrame(kind: .output, body: body)
        }
        #expect(frame(fields.dropLast()).decoded(WorkerProtocol.Output.self) == nil, "cut short")
        #expect(frame(fields + Data([0])).decoded(WorkerProtocol.Output.self) == nil, "a byte left over")
        var unknown = WireWriter()
        WorkerProtocol.Output(row: 0, width: 1, height: 1, format: .jpeg).write(to: &unknown)
        var renamed = unknown.data
        let jpeg = Array("jpeg".utf8)
        let at = try #require(renamed.firstRange(of: Data(jpeg)))
        renamed.replaceSubrange(at, with: Data("jpog".utf8))
        #expect(frame(renamed).decoded(WorkerProtocol.Output.self) == nil, "no such format")
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
