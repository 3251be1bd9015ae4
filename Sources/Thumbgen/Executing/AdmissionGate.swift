import Foundation

/// Bounds the rows in flight two ways: at most `limit` rows admitted and not finished, and no
/// row admitted more than `span` lines past the oldest unfinished one.
///
/// The first keeps a million-row manifest in bounded memory: the reader can never run further
/// ahead of the workers than `limit` rows. The second bounds what waits behind one slow row:
/// results are reported in manifest order, so every row finished after a slow one waits in
/// the report's reorder buffer until it ends, and rows that finish at once (a bad row, a cache
/// hit) would otherwise pile up there without end.
///
/// One exception: a row of the same source as the row admitted before it may go past the
/// limit (`enterContinuing`), by at most the limit again. A source whose rows were split by a
/// full gate would start its decode with the first part and decode again for the rest.
final class AdmissionGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var room: Int
    /// How far below zero `room` may go for rows continuing a source.
    private let overdraft: Int
    private var span: Int
    /// Admitted rows, in the order admitted (the manifest's); the head is unfinished.
    private var admitted: [Int] = []
    private var head = 0
    private var finished = Set<Int>()
    /// How much room a waiting reader waits for: woken for every row that finishes, it would
    /// switch threads once per row; woken when a batch's worth is free, once per batch.
    private var wakeRoom: Int
    private var waiters = 0

    /// A gate that admits at most `limit` rows at once, none more than `span` lines past the
    /// oldest unfinished row; a reader that has to wait waits for `wakeRoom` places at once.
    init(limit: Int, span: Int, wakeRoom: Int = 1) {
        room = max(1, limit)
        overdraft = max(1, limit)
        self.span = max(room, span)
        self.wakeRoom = min(max(1, wakeRoom), room)
    }

    /// Waits at most `timeout` for room for `row` (for `wakeRoom` places, when it waits at
    /// all), then takes it; false if none came.
    func enter(row: Int, timeout: DispatchTimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.seconds)
        condition.lock()
        defer { condition.unlock() }
        if !hasRoom(for: row) {
            waiters += 1
            defer { waiters -= 1 }
            while !hasRoom(for: row) || room < wakeRoom {
                guard condition.wait(until: deadline) else { return false }
            }
        }
        room -= 1
        admitted.append(row)
        return true
    }

    /// Takes room for `row` only if there is some now.
    func tryEnter(row: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard hasRoom(for: row) else { return false }
        room -= 1
        admitted.append(row)
        return true
    }

    /// Takes room for `row`, which continues the source of the row admitted before it, now:
    /// past the limit if need be, by at most the limit again, and past the span. False only
    /// when that overdraft is spent.
    func enterContinuing(row: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard room > -overdraft else { return false }
        room -= 1
        admitted.append(row)
        return true
    }

    /// Gives `row`'s room back.
    func leave(row: Int) {
        leave(rows: CollectionOfOne(row))
    }

    /// Gives the room of every row in `rows` back, under one lock.
    func leave<Rows: Collection>(rows: Rows) where Rows.Element == Int {
        guard !rows.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        room += rows.count
        finished.formUnion(rows)
        while head < admitted.count, finished.remove(admitted[head]) != nil { head += 1 }
        if head > 4096 {
            admitted.removeFirst(head)
            head = 0
        }
        if waiters > 0 && room >= wakeRoom { condition.broadcast() }
    }

    /// Admits `extra` more rows at once from now on (downloads running ahead).
    func widen(by extra: Int) {
        condition.lock()
        defer { condition.unlock() }
        room += extra
        span = max(span, room)
        wakeRoom = min(wakeRoom, room)
        condition.broadcast()
    }

    private func hasRoom(for row: Int) -> Bool {
        guard room > 0 else { return false }
        guard head < admitted.count else { return true }
        return row - admitted[head] < span
    }
}

private extension DispatchTimeInterval {
    /// The interval in seconds; zero for `.never`, which here means "do not wait".
    var seconds: TimeInterval {
        switch self {
        case .seconds(let s): return TimeInterval(s)
        case .milliseconds(let ms): return TimeInterval(ms) / 1e3
        case .microseconds(let us): return TimeInterval(us) / 1e6
        case .nanoseconds(let ns): return TimeInterval(ns) / 1e9
        default: return 0
        }
    }
}
