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
        WorkerWarmUp.run(decoder: decoder, makesPlaceholders: setup.makesPlaceholders)
        WorkerHygiene.restrictSystemCalls()
        output.send(.ready, WorkerProtocol.Ready(version: WorkerProtocol.version, pid: getpid()))
        let fault = WorkerFault.fromEnvironment()
        var recipes: [Int: ThumbnailSpec] = [:]
        while case .frame(let frame) = input.next() {
            guard frame.kind == .unit, let sent = frame.decoded(WorkerProtocol.Unit.self),
                  let unit = sent.resolved(with: &recipes) else { exit(2) }
            UnitRun(unit: unit, decoder: decoder, makesPlaceholders: setup.makesPlaceholders, askAbove: setup.askAbove,
                    fault: fault, input: input, output: output).run()
            output.send(.done, WorkerProtocol.Done())
        }
        exit(0)
    }
}

/// One unit, in the worker: `SourceRender` over its rows, each output sent as soon as it is
/// encoded, each stage reported as it starts (the parent's watchdog times them).
struct UnitRun {
    /// The source file and its rows.
    var unit: WorkerProtocol.Unit
    /// How the source is opened, with the run's limits.
    var decoder: SourceDecoder
    /// Whether the source's placeholder is made (`WorkerProtocol.Setup.makesPlaceholders`).
    var makesPlaceholders: Bool
    /// Estimates below this are not asked for.
    var askAbove: Int64
    /// A fault the tests asked for (`THUMBGEN_FAULT_*`), struck when its stage starts.
    var fault: WorkerFault?
    /// The pipes from and to the parent.
    var input: WorkerFrameReader
    var output: WorkerFrameWriter

    /// Renders the unit, telling the parent as each stage starts and each row ends.
    func run() {
        let (unit, input, output, askAbove, fault) = (unit, input, output, askAbove, fault)
        // Messages name the source by a placeholder: the parent puts the row's `src` back.
        // A unit comes resolved (`WorkerProtocol.Unit.resolved`): a row without its recipe is
        // a broken conversation, as a frame that does not decode is.
        let rows = unit.rows.compactMap { row in
            row.spec.map { SourceRender.Row(spec: $0, outTemplate: row.outTemplate, sourceText: WorkerProtocol.sourcePlaceholder) }
        }
        guard rows.count == unit.rows.count else { exit(2) }
        let numbers = unit.rows.map(\.index)
        let rowNumber: @Sendable (Int) -> Int = { numbers[$0] }
        let render = SourceRender(decoder: decoder, cancellation: nil, makesPlaceholders: makesPlaceholders)
        render.run(path: unit.path, rows: rows, listener: .init(
            stage: { stage, index in
                output.send(.stage, WorkerProtocol.Stage(stage: stage, row: index.map(rowNumber)))
                fault?.strike(at: stage, path: unit.path)
            },
            admit: { estimate throws(ImagingError) in
                // Sent always, so that a worker that outgrows its limit is reported with it;
                // waited on only when the budget must admit it.
                output.send(.estimate, estimate)
                guard estimate.bytes >= askAbove else { return }
                guard case .frame(let frame) = input.next(), frame.kind == .admit,
                      let admit = frame.decoded(WorkerProtocol.Admit.self) else { exit(2) }
                if let refusal = admit.refusal { throw .overLimit(reason: refusal) }
            },
            loaded: { indices, facts in
                output.send(.loaded, WorkerProtocol.Loaded(rows: indices.map(rowNumber), source: RowResult.SourceInfo(facts)))
            },
            output: { index, made in
                let header = WorkerProtocol.Output(row: rowNumber(index), width: made.width, height: made.height,
                                                   format: made.format, decodeMs: made.decodeMilliseconds,
                                                   renderMs: made.renderMilliseconds,
                                                   placeholder: made.placeholder?.stored,
                                                   owesPlaceholder: made.owesPlaceholder ? true : nil, cropBox: made.cropBox)
                output.send(.output, header, payload: made.data)
            },
            failure: { index, failure in
                output.send(.failure, WorkerProtocol.Failure(row: rowNumber(index), code: failure.code,
                                                             message: failure.message,
                                                             overBudget: failure.overBudget))
            }))
    }
}
