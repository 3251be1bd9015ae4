import Foundation
import Synchronization

/// A cache shared between machines, behind the local one (docs/cache.md, Sharing a cache between
/// machines): on a local miss the planner asks it, and what a run renders or fetches is
/// uploaded to it in the background and flushed by `finish()`.
///
/// The remote is not trusted. A record is believed only when it parses whole and answers for
/// the key or URL asked (`RemoteEntries`); a blob only when its bytes hash to its name (and
/// have the size its record says). Anything else is a miss, counted as rejected, and the row is
/// rendered (and uploaded) again. A remote that fails is reported once and, after
/// `failuresBeforeGivingUp` failures in a row, not asked again in the run (`RemoteHealth`):
/// rows never fail because of it.
public final class RemoteCache: Sendable {
    /// Where it is and how it is reached.
    public let settings: RemoteCacheSettings
    let store: RemoteStore
    private let health: RemoteHealth
    private let tally: RemoteTally
    private let uploader: RemoteUploader?
    private let finished = Mutex<RemoteCacheCounts?>(nil)
    /// Files the remote did not have, or had damaged, in this run: not asked for again (a row
    /// is planned twice, before and after its source is identified). Capped, to bound memory.
    private let absent = Mutex<Set<String>>([])
    private static let absentLimit = 100_000

    /// A remote cache as `settings` say; `warn` gets the one warning of a run whose remote
    /// fails (on whichever thread noticed).
    public init(settings: RemoteCacheSettings, warn: @escaping @Sendable (String) -> Void) {
        self.settings = settings
        let store = RemoteStore(settings: settings)
        let health = RemoteHealth(threshold: settings.failuresBeforeGivingUp, location: settings.location,
                                  warn: warn)
        let tally = RemoteTally()
        self.store = store
        self.health = health
        self.tally = tally
        if settings.readOnly {
            uploader = nil
        } else {
            uploader = RemoteUploader(limit: settings.uploadQueueLimit, concurrency: settings.uploadConcurrency) { file in
                guard let bytes = file.bytes() else { return false }
                guard health.isAvailable else {
                    tally.update { $0.dropped += 1 }
                    return false
                }
                switch store.put(file.kind, file.name, bytes) {
                case .success:
                    health.succeeded()
                    tally.update { $0.upload += 1 }
                    return true
                case .failure(let failure):
                    health.failed("PUT \(RemoteStore.path(file.kind, file.name))", failure)
                    tally.update {
                        $0.failed += 1
                        $0.dropped += 1
                    }
                    return false
                }
            }
        }
    }

    /// Waits for the uploads still queued, at most `settings.flushTimeout` seconds (not at all
    /// unless `waiting`: an interrupted run ends now), and returns the run's counts (what was
    /// not uploaded by then is counted as dropped). Call it once the pipeline has finished;
    /// later calls return the same counts at once.
    public func finish(waiting: Bool = true) -> RemoteCacheCounts {
        finished.withLock { done in
            if let done { return done }
            let left = uploader?.drain(within: waiting ? settings.flushTimeout : 0) ?? 0
            let counts = tally.update {
                $0.dropped += left
                return $0
            }
            done = counts
            return counts
        }
    }

    // MARK: Reading

    /// The output stored under `key`, with its bytes, checked; nil when the remote has no sound
    /// copy (or is not asked any more).
    func output(_ key: String) -> (record: OutputRecord, bytes: [UInt8])? {
        guard let entry = fetch(.outputs, key, maxBytes: 64 << 10) else { return nil }
        guard let record = RemoteEntries.output(entry, key: key) else { return rejected(.outputs, key) }
        guard let bytes = fetch(.blobs, record.sha256, maxBytes: Int64(record.bytes)) else { return nil }
        guard bytes.count == record.bytes, ContentDigest.of(bytes) == record.sha256 else {
            return rejected(.outputs, key)
        }
        tally.update { $0.hit += 1 }
        return (record, bytes)
    }

    /// The remote's record of `url` (which body it last served, its validators and freshness);
    /// its blob is not fetched here.
    func urlRecord(_ url: String) -> URLRecord? {
        guard let entry = fetch(.urls, URLIndex.name(for: url), maxBytes: 64 << 10) else { return nil }
        guard let record = RemoteEntries.url(entry, url: url) else { return rejected(.urls, URLIndex.name(for: url)) }
        tally.update { $0.hit += 1 }
        return record
    }

    /// The blob `digest` (a source's body), checked, at most `maxBytes`.
    func blob(_ digest: String, maxBytes: Int64) -> [UInt8]? {
        guard let bytes = fetch(.blobs, digest, maxBytes: maxBytes) else { return nil }
        guard ContentDigest.of(bytes) == digest else { return rejected(.blobs, digest) }
        tally.update { $0.hit += 1 }
        return bytes
    }

    /// A file's bytes; nil on a miss (counted), a failure (counted, reported) or when the
    /// remote is given up on.
    private func fetch(_ kind: RemoteStore.Kind, _ name: String, maxBytes: Int64) -> [UInt8]? {
        guard health.isAvailable, !absent.withLock({ $0.contains(kind.rawValue + name) }) else { return nil }
        switch store.get(kind, name, maxBytes: maxBytes) {
        case .success(let bytes?):
            health.succeeded()
            return bytes
        case .success(nil):
            health.succeeded()
            tally.update { $0.miss += 1 }
            remember(kind, name)
            return nil
        case .failure(.transport(.tooLarge)):
            // Larger than its record says: an answer, and a damaged one.
            health.succeeded()
            return rejected(kind, name)
        case .failure(let failure):
            health.failed("GET \(RemoteStore.path(kind, name))", failure)
            tally.update { $0.failed += 1 }
            return nil
        }
    }

    /// Counts a file the remote had but that failed its checks (as a miss, too), and does not
    /// ask for it again in this run.
    private func rejected<T>(_ kind: RemoteStore.Kind, _ name: String) -> T? {
        tally.update {
            $0.miss += 1
            $0.rejected += 1
        }
        remember(kind, name)
        return nil
    }

    private func remember(_ kind: RemoteStore.Kind, _ name: String) {
        absent.withLock { if $0.count < Self.absentLimit { $0.insert(kind.rawValue + name) } }
    }

    // MARK: Writing

    /// Queues the upload of a rendered output: its blob, then its record. The blob is `bytes`,
    /// held in memory while the uploader has room for them; otherwise `blob` reads it back
    /// (checked) when its turn comes. Reading and hashing it again cost a cold run with large
    /// outputs 1.5% of its CPU (1,000 outputs of 360 KB).
    func upload(output record: OutputRecord, key: String, bytes: Data,
                blob: @escaping @Sendable () -> Data?) {
        let held = uploader?.reserve(bytes.count) == true ? bytes : nil
        let file = RemoteUploader.File(kind: .blobs, name: record.sha256) {
            (held ?? blob()).map { [UInt8]($0) }
        }
        enqueue([file, RemoteUploader.File(kind: .outputs, name: key) { RemoteEntries.encode(record, key: key) }],
                holding: held?.count ?? 0)
    }

    /// Queues the upload of a URL's record, after its body's blob when `blob` is given (a
    /// fresh download; a `304` changes only the record), which reads it back (checked) when
    /// its turn comes.
    func upload(url record: URLRecord, blob: (@Sendable () -> Data?)?) {
        let entry = RemoteUploader.File(kind: .urls, name: URLIndex.name(for: record.url)) { RemoteEntries.encode(record) }
        let body = blob.map { blob in
            RemoteUploader.File(kind: .blobs, name: record.digest) { blob().map { [UInt8]($0) } }
        }
        enqueue((body.map { [$0] } ?? []) + [entry])
    }

    /// Queues `files`, which hold `holding` bytes reserved with the uploader.
    private func enqueue(_ files: [RemoteUploader.File], holding: Int = 0) {
        guard let uploader else { return }
        guard health.isAvailable else {
            uploader.release(holding)
            tally.update { $0.dropped += 1 }
            return
        }
        guard uploader.add(files, holding: holding) else {
            tally.update { $0.dropped += 1 }
            return
        }
    }
}
