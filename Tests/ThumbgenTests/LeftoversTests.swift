import Foundation
import Testing
@testable import Thumbgen

/// What a run that died leaves behind, and who may remove it. Every temporary file and download
/// folder is held under an advisory lock (`flock`) by the process writing it; a sweeper removes
/// one only when it can take that lock, whatever host and process id its name shows, so a
/// container sharing a hostname and a volume with another can never delete that one's live
/// download, and a killed run's leftovers go at the next run.
@Suite("Leftovers: temporaries of runs that died")
struct LeftoversTests {
    /// A host id, as thumbgen 0.2.0 put in its temporary names.
    static let otherHost = "eeeeeeee"
    /// A process id above the kernel's `pid_max` limit (4194304), so never a running process.
    static let deadPID = 2_147_480_000

    /// An exclusive `flock` on a file, taken by this test process through a descriptor of its
    /// own: to thumbgen's sweepers it is exactly what a live writer in another container holds.
    final class HeldLock {
        private var descriptor: Int32

        /// Locks the file at `url` (which must exist), or throws when it cannot.
        init(_ url: URL) throws {
            descriptor = open(url.path, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { throw FixtureError("cannot open \(url.path)") }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)
                throw FixtureError("cannot lock \(url.path)")
            }
        }

        /// Lets the lock go, as the kernel does when its process dies.
        func release() {
            if descriptor >= 0 { close(descriptor) }
            descriptor = -1
        }

        deinit { release() }
    }

    /// Writes `name` in `folder` (a folder holding a `.lock` file and a body when `isFolder`),
    /// dated `age` seconds back; returns it and the file a writer would lock.
    static func make(_ name: String, in folder: URL, isFolder: Bool = false,
                     age: Double = 0) throws -> (url: URL, lock: URL) {
        let url = folder.appendingPathComponent(name)
        if isFolder {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: url.appendingPathComponent(".download.tg-body.tmp"))
            try Data().write(to: url.appendingPathComponent(".lock"))
        } else {
            try Data("partial".utf8).write(to: url)
        }
        let date = Date(timeIntervalSinceNow: -age)
        let inner = isFolder ? [".download.tg-body.tmp", ".lock"].map(url.appendingPathComponent) : []
        for item in inner + [url] {
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: item.path)
        }
        return (url, isFolder ? url.appendingPathComponent(".lock") : url)
    }

    static func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

    @Test("A temporary whose lock a live process holds is kept; once the lock is free it goes, and a name not of thumbgen's form is never touched")
    func heldTemporariesAreKept() throws {
        let folder = try TemporaryDirectory("leftovers-sweep")
        let made = try [
            Self.make(".a.png.tg-0123456789abc.tmp", in: folder.url),
            Self.make(TemporaryName.locked(for: "b.png"), in: folder.url, age: 7200),
        ]
        // thumbgen 0.2.0's host-and-pid form, and a look-alike: not temporaries of this thumbgen.
        let others = try [
            Self.make(".c.png.tg-\(Self.otherHost)-\(Self.deadPID)-y.tmp", in: folder.url, age: 7200),
            Self.make(".d.png.tg-0123456789ab.tmp", in: folder.url, age: 7200),
        ]
        let holders = try made.map { try HeldLock($0.lock) }
        TemporaryName.sweep(folder.url.path)
        for item in made { #expect(Self.exists(item.url), "\(item.url.lastPathComponent) was removed while held") }

        // The writers die: the kernel drops their locks.
        holders.forEach { $0.release() }
        TemporaryName.sweep(folder.url.path)
        for item in made { #expect(!Self.exists(item.url), "\(item.url.lastPathComponent) was kept") }
        for item in others { #expect(Self.exists(item.url), "\(item.url.lastPathComponent) was removed") }
    }

    @Test("cache prune keeps what a live writer holds however old it is, whatever its name, and removes at once a temporary nobody holds")
    func pruneJudgesByLock() throws {
        let folder = try TemporaryDirectory("leftovers-prune")
        let cache = try ThumbnailCache(directory: folder.file("cache"))
        let tmp = URL(fileURLWithPath: cache.layout.temporaryFolder)
        let held = try [
            Self.make(".entry.tg-\(Self.otherHost)-1-a.tmp", in: tmp, age: 7200),
            Self.make(".downloads.tg-\(Self.otherHost)-\(Self.deadPID)-b.tmp", in: tmp, isFolder: true, age: 7200),
            Self.make(".downloads.tg-0123456789abc.tmp", in: tmp, isFolder: true, age: 7200),
        ]
        let free = try [
            Self.make(".downloads.tg-abcdef0123456.tmp", in: tmp, isFolder: true),
            Self.make(".entry.tg-abcdefg012345.tmp", in: tmp),
        ]
        let holders = try held.map { try HeldLock($0.lock) }

        let result = CacheMaintenance(cache: cache).prune(maxSize: nil, maxAge: nil)
        for item in held { #expect(Self.exists(item.url), "\(item.url.lastPathComponent) was removed while held") }
        for item in free { #expect(!Self.exists(item.url), "\(item.url.lastPathComponent) was kept") }
        #expect(result.temporary == free.count)
        withExtendedLifetime(holders) {}
    }

    /// Starts a run of one URL whose body stalls after 100 bytes and waits until the download is
    /// under way in a `.downloads.tg-*` folder inside `parent`; returns the run and the folder.
    static func startMidDownload(_ space: Workspace, server: FaultServer, parent: URL,
                                 environment: [String: String], extra: [String]) async throws
        -> (CLIRunner, URL)
    {
        let manifest = try space.folder.write(CSV.manifest(["src"], [[server.url("/stall/100/q.jpg")]]),
                                              to: "remote.csv")
        // Timeouts far beyond the test's own steps: on a loaded machine the steps that follow
        // (another run, a prune) took over a minute, and a victim ended by its stall timeout
        // meanwhile fails the test for nothing. The test kills it.
        let victim = try CLIRunner(
            [manifest.path, "--out", space.out.path, "--allow-private-network", "--retries", "0",
             "--stall-timeout", "500", "--timeout", "550"] + extra,
            cacheDirectory: space.cache, environment: environment)
        try victim.start()
        // Watched off the concurrency pool (see OffPool), so that a late wake-up cannot miss it.
        let folder = try await OffPool.run { () -> URL? in
            let deadline = ContinuousClock.now + .seconds(60)
            while victim.isRunning && ContinuousClock.now < deadline {
                if let folder = downloadFolders(in: parent).first,
                   receivedBody(in: folder) { return folder }
                usleep(10_000)
            }
            return nil
        }
        #expect(victim.isRunning, "the run ended before its download was under way: \(victim.stderrText)")
        guard let folder else {
            victim.send(SIGKILL)
            _ = await victim.wait(timeout: .seconds(10), killedBy: SIGKILL)
            throw FixtureError("no download folder appeared in \(parent.path)")
        }
        return (victim, folder)
    }

    /// Starts a run as `startMidDownload` does and kills it with SIGKILL mid-download; returns
    /// the folder it left.
    static func killMidDownload(_ space: Workspace, server: FaultServer, parent: URL,
                                environment: [String: String], extra: [String]) async throws -> URL {
        let (victim, folder) = try await startMidDownload(space, server: server, parent: parent,
                                                          environment: environment, extra: extra)
        victim.send(SIGKILL)
        _ = await victim.wait(timeout: .seconds(10), killedBy: SIGKILL)
        #expect(exists(folder), "the killed run left no download folder to clean up")
        return folder
    }

    /// The `.downloads.tg-*` folders directly inside `parent`.
    static func downloadFolders(in parent: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []
        return names.filter { $0.hasPrefix(".downloads.tg-") }.map(parent.appendingPathComponent)
    }

    /// Whether the stalled body's first 100 bytes are on disk in `folder`.
    static func receivedBody(in folder: URL) -> Bool {
        TemporaryDirectory.files(under: folder).contains { name in
            let size = (try? FileManager.default.attributesOfItem(
                atPath: folder.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            return size >= 100
        }
    }

    /// A workspace with a local JPEG the server also serves, a `tmp/` folder for `TMPDIR`, and
    /// the server.
    static func serve(_ label: String) throws -> (Workspace, FaultServer, URL) {
        let space = try Workspace(label)
        try space.fixture(.quadrants(width: 120, height: 80), "q.jpg", as: .jpeg)
        let tmp = space.folder.file("tmp")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        return (space, try FaultServer(root: space.folder.url), tmp)
    }

    @Test("A run killed mid-download leaves its download folder in the cache; the next run removes it")
    func killedDownloadInCache() async throws {
        let (space, server, tmp) = try Self.serve("leftovers-cache")
        let environment = ["TMPDIR": tmp.path]
        let parent = space.cache.appendingPathComponent("v1/tmp")
        let left = try await Self.killMidDownload(space, server: server, parent: parent,
                                                  environment: environment, extra: [])

        // The next run names no URL at all: it still clears what the dead one left.
        let manifest = try space.folder.write(CSV.manifest(["src"], [["q.jpg"]]), to: "local.csv")
        let rerun = try await CLIRunner.run([manifest.path, "--out", space.out.path],
                                            cacheDirectory: space.cache, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(!Self.exists(left), "\(left.lastPathComponent) is still in the cache's v1/tmp")
        #expect(Self.downloadFolders(in: parent).isEmpty)
    }

    @Test("With --no-cache, a run killed mid-download leaves its download folder in TMPDIR; the next run removes it")
    func killedDownloadInTemporaryFolder() async throws {
        let (space, server, tmp) = try Self.serve("leftovers-nocache")
        let environment = ["TMPDIR": tmp.path]
        let left = try await Self.killMidDownload(space, server: server, parent: tmp,
                                                  environment: environment, extra: ["--no-cache"])
        // Something else's file in the same folder, named nothing like thumbgen's, stays.
        let bystander = try space.folder.write("not thumbgen's", to: "tmp/.downloads-of-someone-else")

        let manifest = try space.folder.write(CSV.manifest(["src"], [["q.jpg"]]), to: "local.csv")
        let rerun = try await CLIRunner.run([manifest.path, "--out", space.out.path, "--no-cache"],
                                            cacheDirectory: space.cache, environment: environment)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(!Self.exists(left), "\(left.lastPathComponent) is still in TMPDIR")
        #expect(Self.exists(bystander))
    }

    @Test("A live run's download folder survives another run's start and a cache prune, however old it looks")
    func liveDownloadKept() async throws {
        let (space, server, tmp) = try Self.serve("leftovers-live")
        let environment = ["TMPDIR": tmp.path]
        let parent = space.cache.appendingPathComponent("v1/tmp")
        let (victim, folder) = try await Self.startMidDownload(space, server: server, parent: parent,
                                                               environment: environment, extra: [])
        // Dated two hours back: only its lock says it is in use.
        let old = Date(timeIntervalSinceNow: -7200)
        for name in TemporaryDirectory.files(under: folder) + [""] {
            try? FileManager.default.setAttributes([.modificationDate: old],
                                                   ofItemAtPath: folder.appendingPathComponent(name).path)
        }

        let manifest = try space.folder.write(CSV.manifest(["src"], [["q.jpg"]]), to: "local.csv")
        let other = try await CLIRunner.run([manifest.path, "--out", space.folder.file("other").path],
                                            cacheDirectory: space.cache, environment: environment)
        #expect(other.status == 0, "\(other.stderr)")
        let prune = try await CLIRunner.run(["cache", "prune", "--max-age", "30d", "--cache-dir", space.cache.path],
                                            cacheDirectory: space.cache, environment: environment)
        #expect(prune.status == 0, "\(prune.stderr)")
        #expect(Self.exists(folder), "a live run's download folder was removed")
        #expect(victim.isRunning)

        victim.send(SIGKILL)
        _ = await victim.wait(timeout: .seconds(10), killedBy: SIGKILL)
    }
}
