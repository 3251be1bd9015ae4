import Foundation
import Thumbgen

/// `--watch`: runs the command, then runs it again whenever files change under the folders it
/// reads, until Ctrl-C.
///
/// Each run is a child process of this one, the same command line without `--watch`: a run
/// starts from a clean slate (its workers, its cache handle, its signal handling, a
/// `thumbgen.toml` read afresh), and the cache makes a run over mostly unchanged files cost a
/// warm run. Between runs this process sleeps in `poll` on the kernel's notifications.
enum WatchLoop {
    /// Set in a run's environment: it is one of the watch's runs, and watches nothing itself.
    static let childVariable = "THUMBGEN_WATCH_RUN"

    /// Whether this process is a run the watch started.
    static var isChild: Bool { ProcessInfo.processInfo.environment[childVariable] != nil }

    /// Set in a batch's run, when the batch is all it is to do: the paths that changed, one a
    /// line (`partialPaths`).
    static let changedVariable = "THUMBGEN_WATCH_CHANGED"

    /// The paths this run is to walk, when it is a watch's partial run; nil: the whole tree.
    static var partialPaths: [String]? {
        guard isChild, let text = ProcessInfo.processInfo.environment[changedVariable] else { return nil }
        return text.split(separator: "\n").map(String.init)
    }

    /// Runs the command line of this process without `--watch` now and after every batch of
    /// changes under `roots` (but `skipping`); never returns. Ctrl-C (or SIGTERM) ends it with
    /// the signal's status (130 or 143), the run under way interrupted too. With `events` (the
    /// `--events` path), the runs add their lines to one log, each batch's run after a
    /// `batch` line. With `partial`, a batch's run walks only what changed (`partialPaths`),
    /// unless `prune` must see a removal (then, as after an overflow, the whole tree).
    static func run(roots: [String], skipping: [String], events: String?, partial: Bool = false,
                    prune: Bool = false) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst()).filter { $0 != "--watch" }
        let log: EventLog?
        do {
            log = try events.map { try EventLog(path: $0) }  // emptied: the runs add to it
        } catch {
            printError("\(events ?? ""): cannot write the event log")
            exit(ExitStatus.unwritable.rawValue)
        }
        // Watched before the first run: what changes while it runs is the first batch.
        let watch: FolderWatch
        do {
            watch = try FolderWatch(roots: roots, skipping: skipping)
        } catch {
            printError(error.description)
            exit(ExitStatus.unusable.rawValue)
        }
        var runs = 1
        log?.logBatch(run: runs, changed: 0)
        runOnce(arguments)
        printError("watching \(roots.joined(separator: ", ")) (\(watch.folderCount) folders); Ctrl-C to stop")
        while true {
            let changes = watch.nextBatch()
            guard !changes.isEmpty else { continue }
            let what = changes.contains(.overflow) ? "changes (too many to list)" : "\(changes.count) changed"
            printError("watch: \(what); running again")
            runs += 1
            log?.logBatch(run: runs, changed: changes.contains(.overflow) ? nil : changes.count)
            runOnce(arguments, only: partial ? only(changes, prune: prune) : nil)
        }
    }

    /// The paths a batch's run is to walk, or nil when it must walk the whole tree: an
    /// overflow (the kernel lost some), a name with a line break, (`prune`) a removal, or more
    /// than an environment variable holds (Linux refuses one past 128 KiB). A path under a
    /// folder of the batch goes with it (the walk takes the folder whole).
    private static func only(_ changes: Set<FolderWatch.Change>, prune: Bool) -> [String]? {
        var paths: [String] = []
        for change in changes {
            guard case .path(let path) = change, !path.contains("\n") else { return nil }
            if prune && !FileManager.default.fileExists(atPath: path) { return nil }
            paths.append(path)
        }
        let all = Set(paths)
        let kept = paths.filter { path in
            var folder = (path as NSString).deletingLastPathComponent
            while folder.count > 1 {
                if all.contains(folder) { return false }
                folder = (folder as NSString).deletingLastPathComponent
            }
            return true
        }.sorted()
        return kept.reduce(0, { $0 + $1.utf8.count + 1 }) < 64 * 1024 ? kept : nil
    }

    /// One run as a child process, its output this process's, waited for; with `only`, a
    /// partial run over those paths.
    private static func runOnce(_ arguments: [String], only: [String]? = nil) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment[childVariable] = "1"
        environment[changedVariable] = only?.joined(separator: "\n")
        process.environment = environment
        do {
            try process.run()
        } catch {
            printError("watch: cannot start a run: \(error)")
            return
        }
        process.waitUntilExit()
    }
}
