import Testing
@testable import Thumbgen

/// The admission gate bounds the rows in flight and how far past the oldest unfinished row the
/// reader may run (which bounds the report's reorder buffer).
@Suite("Admission gate")
struct AdmissionGateTests {
    @Test("The gate admits no row more than its span past the oldest unfinished row")
    func gateSpan() {
        let gate = AdmissionGate(limit: 4, span: 10)
        #expect(gate.tryEnter(row: 2))
        #expect(gate.tryEnter(row: 3))
        gate.leave(row: 3)
        // Row 2 is still running: rows up to 11 may enter (room permitting), row 12 may not.
        #expect(gate.tryEnter(row: 11))
        gate.leave(row: 11)
        #expect(!gate.tryEnter(row: 12))
        gate.leave(row: 2)
        #expect(gate.tryEnter(row: 12))
    }

    @Test("A row continuing its source enters a full gate, by at most the limit again")
    func continuingRowsOverdraw() {
        let gate = AdmissionGate(limit: 2, span: 10)
        #expect(gate.tryEnter(row: 0))
        #expect(gate.tryEnter(row: 1))
        #expect(!gate.tryEnter(row: 2))
        #expect(gate.enterContinuing(row: 2))
        #expect(gate.enterContinuing(row: 3))
        #expect(!gate.enterContinuing(row: 4))
        // Four rows are in: two must leave before any row enters the ordinary way.
        gate.leave(rows: [0, 1])
        #expect(!gate.tryEnter(row: 4))
        gate.leave(row: 2)
        #expect(gate.tryEnter(row: 4))
    }
}
