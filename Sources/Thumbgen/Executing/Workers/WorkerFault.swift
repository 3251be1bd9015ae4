import Foundation

/// TEST ONLY: a fault a worker makes on purpose, so that tests can show the parent survives it.
/// Set by `THUMBGEN_WORKER_FAULT=NAME:FAULT@STAGE`, where NAME is the source file's name,
/// FAULT is `segv`, `abort`, `hang` or `alloc` (allocates without end) and STAGE is `open`,
/// `decode`, `render` or `encode`. Only the worker mode reads it: the in-process pipeline has
/// no such hook, so no run without workers can be made to crash by it.
struct WorkerFault: Sendable {
    /// The environment variable; the parent passes it on to its workers.
    static let variable = "THUMBGEN_WORKER_FAULT"

    enum Kind: String, Sendable {
        case segv, abort, hang, alloc
    }

    var name: String
    var kind: Kind
    var stage: WorkerStage

    /// The fault the environment asks for, if any.
    static func fromEnvironment() -> WorkerFault? {
        guard let text = ProcessInfo.processInfo.environment[variable],
              let colon = text.lastIndex(of: ":"), let at = text.lastIndex(of: "@"), colon < at,
              let kind = Kind(rawValue: String(text[text.index(after: colon)..<at])),
              let stage = WorkerStage(rawValue: String(text[text.index(after: at)...])) else { return nil }
        return WorkerFault(name: String(text[..<colon]), kind: kind, stage: stage)
    }

    /// Makes the fault when `stage` starts on the named source.
    func strike(at stage: WorkerStage, path: String) {
        guard stage == self.stage, (path as NSString).lastPathComponent == name else { return }
        switch kind {
        case .segv:
            raise(SIGSEGV)
        case .abort:
            abort()
        case .hang:
            // Like C code that never checks libvips' kill flag.
            while true { sleep(3600) }
        case .alloc:
            var blocks: [UnsafeMutableRawPointer] = []
            while true {
                guard let block = malloc(64 << 20) else { continue }
                memset(block, 1, 64 << 20)  // touched, so that it counts as resident
                blocks.append(block)
            }
        }
    }
}
