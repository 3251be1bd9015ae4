import Foundation
import Synchronization

/// Turns thumbnail requests into files: the library's front door.
///
/// The stage graph, per source and per output:
///
///     submit(row) ─► [admission gate] ─► RowPlanner ─► keep / copy / fail: done here
///                                            │
///                                            ▼ render, read, fetch, revalidate
///     SourceTask (shared by rows naming the same source)
///       [DownloadOperation ─►] IdentifyOperation ─► SourceRenderOperation ─┬─► WriteOperation (row 1)
///        (downloadQueue,         (identifyQueue: digest,   (renderQueue:       └─► WriteOperation (row 2)
///         URL sources only)    plan again, serve hits)  SourceRender)          (writeQueue)
///
/// With `configuration.isolation` (worker processes), a `WorkerUnitOperation` stands in for the
/// `SourceRenderOperation`: a worker makes the rows' outputs with the same `SourceRender`, and
/// each row's `WriteOperation` takes its own.
///
/// Every row is planned first (`RowPlanner`); with a cache, a row whose source is known
/// unchanged without reading or fetching it, and whose output is cached, is served before any
/// operation is made. The identification plans the rest again once their source's digest is
/// known, serves those the cache holds, and hands the misses to the decode.
///
/// Each stage is an `Operation` chained by dependencies on a queue sized for its resource
/// (CPU work to the cores, writes to a few). A row's priority sets the `queuePriority` of its
/// operations; a shared decode takes the highest of its rows'. The gate bounds the rows in
/// flight, so the reader blocks instead of memory growing. Every submitted row ends with
/// exactly one `RowResult`, delivered to `onResults` (rows served together from the cache in
/// one batch, the others one at a time).
public final class Pipeline: Sendable {
    /// How the pipeline runs.
    public let configuration: PipelineConfiguration
    /// Puts outputs in place (`Pipeline+Plans.swift` carries plans out through it).
    let delivery: OutputDelivery
    let planner: RowPlanner
    /// The kind of run, which decides what results report of the cache.
    let mode: RunMode
    let identifyQueue = OperationQueue()
    let renderQueue = OperationQueue()
    let writeQueue = OperationQueue()
    let downloadQueue = OperationQueue()
    let downloads: DownloadWorkspace
    let gate: AdmissionGate
    let registry: SourceRegistry
    /// Stops the work in flight (evaluations, hashing, fetches) when the run is cancelled.
    let cancellation = Cancellation()
    /// Entered when a row is submitted, left when its result is delivered.
    let rows = DispatchGroup()
    /// Where sources are decoded: in this process, or in worker processes.
    let isolation: SourceTask.Isolation
    /// The worker processes, when the pipeline isolates decoding.
    let workers: WorkerPool?
    let onResults: @Sendable ([RowResult]) -> Void
    let state = Mutex(State())
    /// `state.cancelled`, readable without the lock (every row asks).
    private let cancelFlag = Atomic<Bool>(false)
    let planners = DispatchQueue(label: "thumbgen.plan", attributes: .concurrent)
    let plansInFlight = DispatchGroup()
    /// Rows admitted and waiting to be planned, with their path patterns; batches handed
    /// over and not yet taken, and how many work items take them (`Pipeline+Planning.swift`).
    let unplanned = Mutex(UnplannedRows())
    let planQueue = Mutex(PlanQueue())
    /// The recipe memos of batches planned before, one taken by each batch being planned.
    let recipeMemos = Mutex<[OutputKey.RecentRecipes]>([])
    /// The source of the row submitted last.
    private let lastSource = Mutex<SourceLocation?>(nil)
    /// The rows' path patterns, for the claims: one source's rows share one.
    private let patterns = OutputPathPatternMemo()

    struct State {
        var cancelled = false
        var active: [ObjectIdentifier: Job] = [:]
        var batch: [(Operation, OperationQueue)] = []
        var decodes = 0
        var widened = false
    }

    /// Rows queued before their operations are handed to the queues together, so that rows
    /// naming the same source a few lines apart still share one decode.
    static let batchSize = 16

    /// A pipeline writing under `configuration.outputDirectory`; results go to `onResult`,
    /// one at a time, from any thread. Throws when libvips cannot start or the output folder
    /// is unusable.
    public convenience init(configuration: PipelineConfiguration,
                            onResult: @escaping @Sendable (RowResult) -> Void) throws {
        try self.init(configuration: configuration, onResults: { $0.forEach(onResult) })
    }

    /// A pipeline whose results go to `onResults`, from any thread, several at once where rows
    /// end together (a warm run's batches: one call, and one lock in the recorder, per batch
    /// instead of per row).
    public init(configuration: PipelineConfiguration,
                onResults: @escaping @Sendable ([RowResult]) -> Void) throws {
        try VipsRuntime.start(extraLoaders: configuration.extraLoaders)
        VipsRuntime.setThreadsPerImage(configuration.threadsPerImage)
        self.configuration = configuration
        (isolation, workers) = SourceTask.Isolation.of(configuration)
        var delivery = OutputDelivery(
            writer: try configuration.outputDirectory.map {
                try AtomicFileWriter(root: $0, madeFolders: configuration.madeFolders)
            })
        delivery.claims = delivery.writer == nil ? nil : OutputClaims()
        delivery.cache = configuration.cache
        delivery.placeholderKinds = configuration.placeholders
        if configuration.dropLarger || configuration.sourceBudget != nil {
            delivery.weights = SourceWeights(dropLarger: configuration.dropLarger, budget: configuration.sourceBudget,
                                             maximumRows: min(64, configuration.maxPendingRows / 2))
        }
        let mode: RunMode = configuration.cache == nil ? .none
            : configuration.outputDirectory == nil ? .warm : .cache
        self.delivery = delivery
        self.mode = mode
        var planner = RowPlanner(cache: configuration.cache, outputDirectory: configuration.outputDirectory,
                                 limits: configuration.limits, offline: configuration.offline, journaled: true)
        planner.readsPlaceholders = !configuration.placeholders.isEmpty
        planner.fillsPlaceholders = configuration.makesPlaceholders
        self.planner = planner
        // A slow row holds up at most 64 windows' worth of finished rows in the report.
        self.gate = AdmissionGate(limit: configuration.maxPendingRows, span: 64 * configuration.maxPendingRows,
                                  wakeRoom: 2 * Self.planBatch)
        self.registry = SourceRegistry()
        self.onResults = onResults
        identifyQueue.name = "thumbgen.identify"
        identifyQueue.maxConcurrentOperationCount = configuration.cpuConcurrency
        renderQueue.name = "thumbgen.render"
        renderQueue.maxConcurrentOperationCount = configuration.cpuConcurrency
        writeQueue.name = "thumbgen.write"
        writeQueue.maxConcurrentOperationCount = configuration.writeConcurrency
        downloadQueue.name = "thumbgen.download"
        // The transfer loop runs `concurrentTransfers` at a time and keeps the rest waiting in
        // priority order; the queue only hands work over, so it may run well ahead.
        downloadQueue.maxConcurrentOperationCount = configuration.downloadLookahead
        downloads = DownloadWorkspace(policy: configuration.fetch, cache: configuration.cache,
                                      fetching: configuration.fetching)
    }

    /// How many source decodes the pipeline has started (rows sharing a source share one).
    public var decodeCount: Int { state.withLock { $0.decodes } }

    /// Whether `cancel()` has been called.
    public var isCancelled: Bool { cancelFlag.load(ordering: .acquiring) }

    /// Adds one row; blocks while the pipeline already holds as many rows as it admits.
    ///
    /// The row is planned first. With a cache that is done on `planners`, `planBatch` rows
    /// to a work item, several at once (the plan is file-system calls, and on a warm run it is
    /// all the work there is); a row the cache serves finishes there, before any operation is
    /// made, and the rest go on into the pipeline from there.
    public func submit(_ request: ThumbnailRequest) {
        let continuing = lastSource.withLock { last in
            defer { last = request.source }
            return last == request.source
        }
        // Before waiting for a place: a new source's first row closes the set before it, whose
        // rows may hold every place while they wait to be weighed.
        delivery.weights?.join(row: request.row, source: request.source)
        admit(row: request.row, continuingSource: continuing)
        rows.enter()
        let pattern = delivery.claims == nil ? nil : patterns.pattern(
            template: request.outTemplate, source: request.source, fit: request.spec.fit, row: request.row)
        configuration.onEvent?(.started(request))
        guard configuration.cache != nil, !isCancelled else {
            // In manifest order, before any later row can ask for a path.
            handOverPlans()
            delivery.claims?.expect(row: request.row, pattern: pattern)
            return carryOut(RemoteAsking.plan(by: planner) { $0.plan(request) }, for: request)
        }
        queueForPlanning(request, pattern: pattern)
    }

    /// Takes a place in the admission window, waiting for one. While it waits it keeps handing
    /// queued operations over: rows that missed the cache join the batch from other threads.
    /// A row continuing the previous row's source does not wait (`AdmissionGate`): were it to,
    /// the source's rows already in would be handed over and start its decode, and the rest
    /// would decode it again (a static-site run of 118 photos at six outputs each decoded 13 of
    /// its 16 WebPs twice).
    func admit(row: Int, continuingSource: Bool = false) {
        if gate.tryEnter(row: row) { return }
        if continuingSource, gate.enterContinuing(row: row) { return }
        // Rows admitted but still waiting to be batched hold places in the gate: handed over
        // now, or a source with more rows than the gate has places would be planned only
        // once its own rows finished, one source at a time (a ten-sizes run used one core).
        // The last source's rows stay together while there are others to hand over: split
        // across two batches planned at once, the later ones would wait for their paths
        // (`OutputClaims`) and check their files again by hashing them (2.6% of a warm run's
        // rows did).
        handOverPlans(keepingLastSource: true)
        startOperations()
        // Rather than sleep, plan rows waiting for a thread (a warm run's rows are planned
        // faster than threads are woken).
        while planOne() {
            if gate.tryEnter(row: row) { return }
        }
        handOverPlans()
        while planOne() {
            if gate.tryEnter(row: row) { return }
        }
        while !gate.enter(row: row, timeout: .milliseconds(50)) { flush() }
    }

    /// Waits until every submitted row has its result.
    ///
    /// Operations may outlive their rows: a cancelled row's encode stopping, or a stage that
    /// ignored its deadline (C code that never checks the kill flag), whose row the stage watch
    /// has already ended. The first end within moments and are waited for, for a second at
    /// most after a cancel; the second are not, so that no C code can hold the run hostage.
    public func waitUntilFinished() {
        delivery.weights?.close()
        handOverPlans()
        plansInFlight.wait()
        flush()
        rows.wait()
        // Writes resumed by output claims (a row that waited for its path) are done by now
        // unless the row ended first; they are short, and a run ends after them.
        delivery.claims?.waitForResumes()
        // The rows the run hashed are written first: the journal it saves may name them.
        configuration.cache?.recordUses()
        // A cancelled run leaves the last journal as it was: its entries still check themselves.
        if !isCancelled && !configuration.partial { planner.journal?.save() }
        let queues = [downloadQueue, identifyQueue, renderQueue, writeQueue]
        let patience = ContinuousClock.now + .seconds(1)
        while queues.contains(where: { $0.operationCount > 0 }), StageWatch.overrunning == 0,
              !isCancelled || ContinuousClock.now < patience {
            Thread.sleep(forTimeInterval: 0.005)
        }
        downloads.finish()
        workers?.finish()
    }

    /// Kills the worker processes of every pipeline in this process at once: for an exit that
    /// cannot wait for a cancel (a second signal), so that no worker outlives the run.
    public static func stopEveryWorker() {
        WorkerPool.stopEveryWorker()
    }

    /// Cancels every row in flight (encodes stop at once; they end as `cancelled`) and refuses
    /// rows submitted later.
    public func cancel() {
        let jobs = state.withLock { state in
            state.cancelled = true
            cancelFlag.store(true, ordering: .releasing)
            return Array(state.active.values)
        }
        jobs.forEach { $0.advance(.failed(.cancelled($0.request.sourceText))) }
        cancellation.cancel()
        // A worker stuck inside C would hold its unit's thread: killed, it lets go at once.
        workers?.stopAll()
        for case let download as DownloadOperation in downloadQueue.operations { download.abandon() }
    }
}

/// The pipeline takes the rows a manifest feeds it.
extension Pipeline: RowExecutor {}
