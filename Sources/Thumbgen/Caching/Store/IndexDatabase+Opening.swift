import CSQLite
import Foundation

/// Opening the cache's database: the connection (immutable when only looking), the schema
/// brought to this version, and what counts as damage (set aside) or as busy (waited for).
extension IndexDatabase {
    /// A connection to `path` with the schema in place, or nil (said through `warn`).
    static func open(_ path: String, readOnly: Bool, warn: @Sendable (String) -> Void,
                             refused: (@Sendable (String) -> Void)?) -> OpaquePointer? {
        var setAside = false
        // Another process making the tables, or switching the file to WAL, holds it for a
        // moment: waited for, a few times over, and never taken for damage.
        for _ in 0..<busyAttempts {
            guard let connection = connect(path, readOnly: readOnly) else {
                warn("\(path) cannot be opened: the cache's index is not used this run")
                return nil
            }
            let preparation = prepare(connection, readOnly: readOnly)
            if preparation == .ready { return connection }
            sqlite3_close_v2(connection)
            switch preparation {
            case .ready, .absent:
                return nil
            case .newer(let version):
                warn("\(path) was made by a newer thumbgen (schema \(version)): the cache's index is not used this run")
                return nil
            case .busy:
                usleep(100_000)
            case .failed(let message):
                // A full or read-only file system: the cache's one warning about writes says it.
                if let refused { refused(message) } else {
                    warn("\(path) cannot be used (\(message)): the cache's index is not used this run")
                }
                return nil
            case .damaged:
                guard !readOnly, !setAside else {
                    warn("\(path) is damaged: the cache's index is not used this run")
                    return nil
                }
                // Set aside rather than deleted, so that it can be looked at; the outputs'
                // records and blobs are files of their own, and only what the index knew is lost.
                for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
                rename(path, path + ".damaged")
                setAside = true
                warn("\(path) was damaged: set aside as index.db.damaged and started empty (no output is lost)")
            }
        }
        warn("\(path) stayed busy: the cache's index is not used this run")
        return nil
    }

    /// How many times opening waits (0.1 s each, past SQLite's own busy timeout) for a database
    /// another process holds.
    static let busyAttempts = 50

    /// A connection to `path` with a busy timeout, or nil when SQLite cannot open it. Read only,
    /// and with no write-ahead log beside it (a run closes the database at its end, which folds
    /// the log in), it is opened `immutable`: SQLite then makes no `-wal` or `-shm` file and
    /// takes no lock, so that a dry run leaves the cache directory as it found it (and, should a
    /// run write the database meanwhile, at worst stops reading it, said through `warn`). With a
    /// log there (another process has it open, or one was killed), it reads through the log.
    static func connect(_ path: String, readOnly: Bool) -> OpaquePointer? {
        var connection: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            | SQLITE_OPEN_NOMUTEX  // the lock around `State` serialises its use
        let logged = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int).map { $0 > 0 } ?? false
        let name = readOnly ? "file:" + uriPath(path) + (logged ? "?mode=ro" : "?immutable=1") : path
        guard sqlite3_open_v2(name, &connection, flags, nil) == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            return nil
        }
        sqlite3_busy_timeout(connection, busyMilliseconds)
        return connection
    }

    /// What opening found.
    enum Preparation: Equatable {
        /// The tables are there, at this thumbgen's version.
        case ready
        /// Read only, and no tables yet (no run has written the database).
        case absent
        /// Made by a newer thumbgen.
        case newer(Int64)
        /// Another process holds the file; try again.
        case busy
        /// Not a database, or one SQLite finds corrupt.
        case damaged
        /// Anything else (a full disk, a file that cannot be written), in SQLite's words.
        case failed(String)
    }

    /// Brings the database on `connection` to `IndexSchema.version`: WAL mode (kept by the file
    /// once set), then each missing step in one transaction.
    static func prepare(_ connection: OpaquePointer, readOnly: Bool) -> Preparation {
        func verdict(_ code: Int32) -> Preparation {
            switch code & 0xff {
            case SQLITE_BUSY, SQLITE_LOCKED: .busy
            case SQLITE_NOTADB, SQLITE_CORRUPT: .damaged
            default: .failed(String(cString: sqlite3_errstr(code)))
            }
        }
        let (found, readCode) = userVersion(connection)
        guard let found else { return verdict(readCode) }
        if found > IndexSchema.version { return .newer(found) }
        if readOnly { return found == IndexSchema.version ? .ready : .absent }
        // Lookups go by key and touch few pages: a small page cache keeps the run's memory
        // as it was before the database (SQLite's default is 2 MiB).
        var code = exec(connection, "PRAGMA cache_size = -\(pageCacheKiB)")
        guard code == SQLITE_OK else { return verdict(code) }
        code = exec(connection, "PRAGMA synchronous = NORMAL")
        guard code == SQLITE_OK else { return verdict(code) }
        guard found < IndexSchema.version else { return .ready }
        code = exec(connection, "PRAGMA journal_mode = WAL")
        guard code == SQLITE_OK else { return verdict(code) }
        code = exec(connection, "BEGIN IMMEDIATE")
        guard code == SQLITE_OK else { return verdict(code) }
        func undo(_ code: Int32) -> Preparation {
            _ = exec(connection, "ROLLBACK")
            return verdict(code)
        }
        // Another process may have made the tables since the version was read.
        let (current, currentCode) = userVersion(connection)
        guard let current else { return undo(currentCode) }
        guard current < IndexSchema.version else {
            _ = exec(connection, "ROLLBACK")
            return current > IndexSchema.version ? .newer(current) : .ready
        }
        for step in IndexSchema.steps.dropFirst(Int(current)) {
            for statement in step {
                code = exec(connection, statement)
                guard code == SQLITE_OK else { return undo(code) }
            }
        }
        code = exec(connection, "PRAGMA user_version = \(IndexSchema.version)")
        guard code == SQLITE_OK else { return undo(code) }
        code = exec(connection, "COMMIT")
        guard code == SQLITE_OK else { return undo(code) }
        return .ready
    }

    /// `PRAGMA user_version`, or nil with SQLite's code when it cannot be read.
    static func userVersion(_ connection: OpaquePointer) -> (Int64?, Int32) {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(connection, "PRAGMA user_version", -1, &statement, nil)
        guard prepared == SQLITE_OK, let statement else { return (nil, prepared) }
        defer { sqlite3_finalize(statement) }
        let stepped = sqlite3_step(statement)
        guard stepped == SQLITE_ROW else { return (nil, stepped) }
        return (sqlite3_column_int64(statement, 0), SQLITE_OK)
    }

    /// Runs `sql` (no parameters, results ignored); SQLite's result code.
    static func exec(_ connection: OpaquePointer, _ sql: String) -> Int32 {
        sqlite3_exec(connection, sql, nil, nil, nil)
    }

    /// `path` for a `file:` URI: the three characters a URI gives a meaning of its own escaped.
    static func uriPath(_ path: String) -> String {
        path.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3f")
            .replacingOccurrences(of: "#", with: "%23")
    }
}
