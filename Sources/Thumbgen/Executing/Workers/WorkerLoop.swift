import Foundation

/// The worker side: a thumbgen process started by the parent (`thumbgen __worker`) that
/// decodes, renders and encodes one unit at a time, with the same operations as the
/// in-process pipeline, and answers over the pipes on descriptors 3 (from the parent) and 4
/// (to it). Anything that goes wrong in C here ends this process only; the parent fails the
/// unit's rows and starts another.
public enum WorkerLoop {
    /// The argument that starts the worker mode; not a command users type.
    public static let argument = "__worker"

    /// Serves units until the parent closes the pipe, then exits.
    public static func run() -> Never {
        WorkerHygiene.apply()
        WorkerHygiene.keepFreedMemory()
        let input = WorkerFrameReader(descriptor: 3)
        let output = WorkerFrameWriter(descriptor: 4)
        guard case .frame(let frame) = input.next(), frame.kind == .setup,
              let setup = frame.decoded(WorkerProtocol.Setup.self) else { exit(2) }
        guard setup.version == WorkerProtocol.version else {
            output.send(.ready, WorkerProtocol.Ready(version: WorkerProtocol.version, pid: getpid()))
            exit(2)
        }
        do {
            try VipsRuntime.start(extraLoaders: setup.extraLoaders)
        } catch {
            exit(3)
        }
        VipsRuntime.setThreadsPerImage(setup.threadsPerImage)
        let decoder = SourceDecoder(limits: setup.limits)
        WorkerWarmUp.run(decoder: decoder)
        WorkerHygiene.restrictSystemCalls()
        output.send(.ready, WorkerProtocol.Ready(version: WorkerProtocol.version, pid: getpid()))
        let fault = WorkerFault.fromEnvironment()
        while case .frame(let frame) = input.next() {
            guard frame.kind == .unit, let unit = frame.decoded(WorkerProtocol.Unit.self) else { exit(2) }
            StageReport.observer = { stage, row in
                output.send(.stage(stage, row: row))
                fault?.strike(at: stage, path: unit.path)
            }
            UnitRun(unit: unit, decoder: decoder, askAbove: setup.askAbove, input: input, output: output).run()
            output.send(.done, WorkerProtocol.Done())
        }
        exit(0)
    }
}

/// One unit, in the worker: its rows become jobs, decoded once and rendered one after the
/// other, each output sent as soon as it is encoded.
struct UnitRun {
    var unit: WorkerProtocol.Unit
    var decoder: SourceDecoder
    /// Estimates below this are not asked for.
    var askAbove: Int64
    var input: WorkerFrameReader
    var output: WorkerFrameWriter

    func run() {
        let output = output
        let jobs = unit.rows.map { row in
            let request = ThumbnailRequest(row: row.index, id: String(row.index),
                                           sourceText: WorkerProtocol.sourcePlaceholder,
                                           source: .file(unit.path), outTemplate: row.outTemplate,
                                           spec: row.spec)
            return Job(request: request, plan: RowPlan(action: .render), onEvent: { event in
                if case .loaded(let request, let source) = event {
                    output.send(.loaded, WorkerProtocol.Loaded(row: request.row, source: source))
                }
            }, onFinish: { job, result in
                guard let error = result.error else { return }
                output.send(.failure, WorkerProtocol.Failure(row: job.request.row, code: error.code,
                                                             message: error.message))
            })
        }
        let bytes = SourceBytes(path: unit.path, digest: nil, origin: .local, verified: true, file: nil)
        let decode = DecodeOperation(decoder: decoder, handover: .init(jobs: jobs, bytes: bytes),
                                     cancellation: nil)
        decode.admitDecode = { [input, output, askAbove] estimate throws(ImagingError) in
            // Sent always, so that a worker that outgrows its limit is reported with it; waited
            // on only when the budget must admit it.
            output.send(.estimate, estimate)
            guard estimate.bytes >= askAbove else { return }
            guard case .frame(let frame) = input.next(), frame.kind == .admit,
                  let admit = frame.decoded(WorkerProtocol.Admit.self) else { exit(2) }
            if let refusal = admit.refusal { throw .overLimit(reason: refusal) }
        }
        decode.start()
        for job in jobs {
            let render = RenderOperation(job: job, decode: decode, limits: decoder.limits, cancellation: nil)
            render.start()
            guard let encoded = render.encoded, !job.isFinished else { continue }
            let times = job.stageTimes
            let header = WorkerProtocol.Output(row: job.request.row, width: encoded.width,
                                               height: encoded.height, format: encoded.format,
                                               decodeMs: times.decode, renderMs: times.render)
            if let frame = WorkerFrame.output(header, bytes: encoded.data) { output.send(frame) }
        }
    }
}

/// Where the operations tell a worker's parent which stage they reached. Set by the worker
/// loop only; in process it stays nil and costs one load per stage.
enum StageReport {
    /// Receives each stage as it starts, with the row (nil: the unit's).
    nonisolated(unsafe) static var observer: ((WorkerStage, Int?) -> Void)?

    /// Reports that `stage` starts, for `row`.
    static func enter(_ stage: WorkerStage, row: Int? = nil) {
        observer?(stage, row)
    }
}
