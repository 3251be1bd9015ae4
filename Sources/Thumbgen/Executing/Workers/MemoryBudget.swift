import Foundation

/// The run's `--max-memory`: the decodes in flight in all workers together hold at most this
/// much, by their header estimates (`DecodeEstimate`). A decode waits for room; one larger
/// than the whole budget is refused (`too_large`). A decode always gets in when nothing else
/// holds any, so that the estimate's error cannot stall a run; a small one (`askAbove`) is not
/// counted at all.
final class MemoryBudget: @unchecked Sendable {
    /// Bytes the decodes in flight may hold together.
    let total: Int64
    /// Each worker's share: `total` over the number of workers. A worker whose resident memory
    /// passes its share (or its grant, when that is larger), with room for the process itself,
    /// is stopped and its rows fail `too_large`.
    let share: Int64
    private let condition = NSCondition()
    private var held: Int64 = 0

    /// Decodes estimated below this go ahead without asking: a round trip to the parent for a
    /// thumbnail-sized source costs more than the source, and together they are bounded by
    /// the number of workers times this. A sixteenth of the budget, at most 32 MiB.
    var askAbove: Int64 { min(32 << 20, total / 16) }

    /// What a process needs besides its decode: the Swift runtime, libvips, the encoders.
    static let processBaseline: Int64 = 256 << 20

    /// A budget of `total` bytes shared by `workers` workers.
    init(total: Int64, workers: Int) {
        self.total = total
        share = total / Int64(max(1, workers))
    }

    /// The default budget: half of the memory this process may use, the machine's RAM or the
    /// cgroup limit of its container, whichever is lower.
    static func defaultTotal() -> Int64 {
        let pages = Int64(sysconf(Int32(_SC_PHYS_PAGES))), pageSize = Int64(sysconf(Int32(_SC_PAGESIZE)))
        var memory = pages * pageSize
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .ascii),
           let limit = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), limit > 0 {
            memory = min(memory, limit)
        }
        return max(memory / 2, 256 << 20)
    }

    /// Takes `bytes` of the budget, waiting for room; false when `isCancelled` says to stop
    /// waiting.
    func reserve(_ bytes: Int64, isCancelled: () -> Bool) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while held > 0 && held + bytes > total {
            if isCancelled() { return false }
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
        held += bytes
        return true
    }

    /// Gives `bytes` back.
    func release(_ bytes: Int64) {
        condition.lock()
        held -= bytes
        condition.broadcast()
        condition.unlock()
    }

    /// `bytes` as people read it: "512 MiB", "1.5 GiB".
    static func text(_ bytes: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes), unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) bytes" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
