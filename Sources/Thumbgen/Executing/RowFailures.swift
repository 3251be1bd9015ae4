import Foundation

/// Every failure the executor itself gives a row, in one file, in the words the report shows:
/// a plan that cannot be carried out, a download that did not succeed, a worker that died or
/// overran, an output that could not be put in place. (A cancel, which every layer gives, is
/// `ThumbnailFailure.cancelled`; the planner's failures come with its plans, the imaging's from
/// `SourceRender`, the parser's as `RowError`s; a job ends with any of them through
/// `Job.advance(.failed(_:))`.)
extension ThumbnailFailure {
    /// An output left unplaced by `--budget`: with it, its source's outputs come to `total` bytes.
    static func overSourceBudget(_ src: String, bytes: Int, total: Int, budget: Int) -> ThumbnailFailure {
        ThumbnailFailure(.overBudget, "\(src): this output's \(bytes) bytes take the source's outputs to \(total) "
                         + "bytes, over --budget \(budget); not written")
    }

    /// A plan that says `fail` without saying why (never made by the planner).
    static func noPlan(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.invalidRow, "\(src): no plan")
    }

    /// A `keep` or `copy` plan whose record went away before it was carried out.
    static func cachedOutputMissing(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.writeFailed, "\(src): the cached output went missing")
    }

    /// A rendered row whose imaging ended without an output or a failure.
    static func noOutputMade(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.encodeFailed, "\(src): no output was made")
    }

    /// A damaged stored source that this process could not drop (a cache it cannot write).
    static func damagedCopyKept(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.writeFailed, "\(src): the cached copy is "
                         + "damaged and could not be dropped; run `thumbgen cache verify`")
    }

    /// The failure for a download that did not succeed.
    static func fetch(_ failure: FetchFailure, src: String) -> ThumbnailFailure {
        let code: ErrorCode
        switch failure.error {
        case .httpStatus: code = .httpError
        case .connection, .truncated, .other: code = .networkError
        case .timeout: code = .timeout
        case .tooLarge: code = .tooLarge
        case .tooManyRedirects: code = .tooManyRedirects
        case .forbiddenAddress: code = .forbiddenAddress
        case .cancelled: code = .cancelled
        case .offline: code = .notCached
        case .setup, .noCredentials: code = .fetchSetupFailed
        case .localWrite: code = .writeFailed
        }
        let tries = failure.attempts > 1 ? " (after \(failure.attempts) attempts)" : ""
        return ThumbnailFailure(code, "\(src): \(failure.error)\(tries)")
    }

    // MARK: Workers

    /// No worker process could be started for the row's unit.
    static func workerNotStarted(_ src: String, _ error: any Error) -> ThumbnailFailure {
        ThumbnailFailure(.crashed, "\(src): no worker process could be started: \(error)")
    }

    /// A row's failure as its worker reported it, with the row's `src` put back in place of
    /// the placeholder the worker was given.
    static func reported(_ failure: WorkerProtocol.Failure, src: String) -> ThumbnailFailure {
        var reported = ThumbnailFailure(failure.code, failure.message.replacingOccurrences(
            of: WorkerProtocol.sourcePlaceholder, with: src))
        if failure.code == .overBudget { reported.overBudget = failure.overBudget }
        return reported
    }

    /// A unit that ended `done` without this row's output or failure: a worker's bug.
    static func workerMadeNoOutput(_ src: String) -> ThumbnailFailure {
        ThumbnailFailure(.encodeFailed, "\(src): the worker made no output")
    }

    /// What the rows still open fail with after their unit ended as `ending`; nil for `done`.
    static func unitEnded(_ ending: UnitConversation.Ending, src: String) -> ThumbnailFailure? {
        switch ending {
        case .done:
            return nil
        case .cancelled:
            return .cancelled(src)
        case .died(let exit, let place):
            return ThumbnailFailure(.crashed, "\(src): the worker process died of \(exit.description) "
                                    + "while \(place.stage.gerund) this source; the run went on with a new one")
        case .overran(let place, let seconds):
            return ThumbnailFailure(.timeout, "\(src): \(place.stage.gerund) ran past the \(seconds.formatted()) s "
                                    + "limit (--timeout); the worker was stopped")
        case .outgrew(let limit, let estimate, let place):
            let guess = estimate.map { ", against an estimate of \(MemoryBudget.text($0)) from its header" } ?? ""
            return ThumbnailFailure(.tooLarge, "\(src): the worker passed its memory limit of "
                                    + "\(MemoryBudget.text(limit)) while \(place.stage.gerund) this source\(guess) "
                                    + "(--max-memory)")
        }
    }

    // MARK: Putting outputs in place

    /// An earlier row (`other`) writes other bytes to the same path.
    static func outputConflict(_ src: String, other: Int, path: String) -> ThumbnailFailure {
        ThumbnailFailure(.outputConflict, "\(src): row \(other) writes other bytes to \(path); give one of them another out")
    }

    /// The file at `path` changed while the row waited for it, and the cache no longer has
    /// the bytes to write.
    static func changedWhileWaiting(_ src: String, path: String) -> ThumbnailFailure {
        ThumbnailFailure(.writeFailed, "\(src): \(path) changed while "
                         + "the row waited for it, and the cached output is gone; run again")
    }

    /// Writing the output failed (or its path leads outside `--out`).
    static func notWritten(_ src: String, _ error: AtomicFileWriter.Failure) -> ThumbnailFailure {
        ThumbnailFailure(error.escaped ? .outputEscapes : .writeFailed, "\(src): \(error.description)")
    }
}
