import Foundation

/// How a pipeline runs its decodes in worker processes: the thumbgen binary in its worker
/// mode (`WorkerLoop`), one process per CPU slot, supervised.
public struct WorkerIsolation: Sendable {
    /// The thumbgen executable that serves as the worker (`/proc/self/exe` for the CLI).
    public var executable: String
    /// The run-wide memory budget in bytes (`--max-memory`); nil: half the machine's memory.
    public var maxMemory: Int64?
    /// The workers' whole environment: a minimal one (`minimalEnvironment()`) by default.
    public var environment: [String: String]

    /// Workers started from `executable`, with a minimal environment.
    public init(executable: String = "/proc/self/exe", maxMemory: Int64? = nil) {
        self.executable = executable
        self.maxMemory = maxMemory
        environment = Self.minimalEnvironment()
    }

    /// What a worker inherits: where temporary files go, how libraries are found, and whether
    /// vector code is off (`THUMBGEN_NO_VECTOR`, which changes pixels: both modes must agree),
    /// and nothing else (no credentials, proxies or tokens). The Swift runtime's crash backtracer
    /// is off: a crashing worker is the parent's business, reported per row, and the
    /// backtracer would spend seconds symbolicating first.
    public static func minimalEnvironment() -> [String: String] {
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["SWIFT_BACKTRACE": "enable=no", "LANG": "C.UTF-8"]
        for name in ["TMPDIR", "LD_LIBRARY_PATH", "THUMBGEN_NO_VECTOR", WorkerFault.variable] {
            if let value = inherited[name] { environment[name] = value }
        }
        return environment
    }
}

extension SourceTask.Isolation {
    /// Where `configuration` has its sources decoded, and the worker pool it needs (nil in
    /// process).
    static func of(_ configuration: PipelineConfiguration) -> (SourceTask.Isolation, WorkerPool?) {
        guard let settings = configuration.isolation else {
            return (.none(SourceDecoder(limits: configuration.limits), configuration.rendering ?? SourceRenderer(),
                          makesPlaceholders: configuration.makesPlaceholders), nil)
        }
        let budget = MemoryBudget(total: settings.maxMemory ?? MemoryBudget.defaultTotal(),
                                  workers: configuration.cpuConcurrency)
        let pool = WorkerPool(settings: .init(
            executable: settings.executable, environment: settings.environment,
            setup: .init(version: WorkerProtocol.version, extraLoaders: configuration.extraLoaders,
                         threadsPerImage: configuration.threadsPerImage, limits: configuration.limits,
                         askAbove: budget.askAbove, makesPlaceholders: configuration.makesPlaceholders)))
        return (.workers(pool, budget, configuration.limits), pool)
    }
}
