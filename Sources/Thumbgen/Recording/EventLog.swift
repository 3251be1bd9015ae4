import Foundation
import Synchronization

/// Writes `--events`: one JSON line per thing that happens to a row, as it happens (the
/// delegate callbacks of the iOS image views thumbgen descends from: started, loaded, then
/// written, unchanged, failed or cancelled).
///
/// Every line has `event`, `t` (seconds since the run began), `row`, `id` and `src`; `loaded`
/// adds `source` (bytes, width, height, format, frames); the last event of a row carries the
/// fields of its report record. Each line is written with one system call, so a reader
/// following the file (`tail -f`, a pipe) sees whole lines at once.
public final class EventLog: Sendable {
    private let handle: Mutex<FileHandle>
    private let started: ContinuousClock.Instant
    private let closesHandle: Bool

    /// A log written to `path`, created or emptied (with `appending`, created or added to);
    /// `-` is standard output.
    public init(path: String, started: ContinuousClock.Instant = .now, appending: Bool = false) throws {
        if path == "-" {
            handle = Mutex(FileHandle.standardOutput)
            closesHandle = false
        } else {
            let url = URL(fileURLWithPath: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            if !appending || !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil) else {
                    throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
                }
            }
            // Every line at the end of the file as it is then: the runs of a watch and the watch
            // itself write to one log.
            let descriptor = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path]) }
            handle = Mutex(FileHandle(fileDescriptor: descriptor, closeOnDealloc: false))
            closesHandle = true
        }
        self.started = started
    }

    deinit {
        if closesHandle { handle.withLock { try? $0.close() } }
    }

    /// Logs a pipeline event (`started`, `loaded`).
    public func log(_ event: PipelineEvent) {
        switch event {
        case .started(let request):
            write("started", tail(row: request.row, id: request.id, src: request.sourceText) + "}")
        case .loaded(let request, let source, let decode):
            write("loaded", tail(row: request.row, id: request.id, src: request.sourceText)
                  + ",\"source\":" + source.jsonRecord + ",\"decode\":\(decode)}")
        }
    }

    /// Logs a watch's batch (`--watch`): the `changed` paths that start run number `run`
    /// (`changed` nil: more than the kernel could list).
    public func logBatch(run: Int, changed: Int?) {
        write("batch", "\"run\":\(run)" + (changed.map { ",\"changed\":\($0)" } ?? "") + "}")
    }

    /// Logs a row's result: its status is the event's name.
    public func log(_ result: RowResult) {
        // The record is an object already: the event's two fields go in front of its own.
        write(result.status.rawValue, String(result.jsonRecord.dropFirst()))
    }

    /// The fields after `t`, from `row` on.
    private func tail(row: Int, id: String, src: String) -> String {
        "\"row\":\(row),\"id\":" + JSONObjectText.quoted(id) + ",\"src\":" + JSONObjectText.quoted(src)
    }

    /// Writes `{"event":EVENT,"t":T,` then `rest`. The time is read under the file's lock, so
    /// that lines written from several threads never go back in time.
    private func write(_ event: String, _ rest: String) {
        let head = "{\"event\":\"\(event)\",\"t\":"
        handle.withLock { handle in
            let elapsed = String(format: "%.3f", (ContinuousClock.now - started).inSeconds)
            try? handle.write(contentsOf: Data((head + elapsed + "," + rest + "\n").utf8))
        }
    }
}
