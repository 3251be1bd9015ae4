import CSQLite
import Foundation
import Synchronization

/// The cache's one database, `CACHE/index.db` (SQLite, WAL mode): what the cache knows besides
/// its blobs and output records (`IndexSchema` lists the tables). With its `+Opening` file, the
/// only code that sees SQLite.
///
/// One connection per process, behind a lock, with its statements prepared once and kept.
/// Two processes share the file safely (WAL, a busy timeout). Whatever goes wrong stays a cache
/// problem, never a run's: a damaged file found on opening is set aside and the database
/// started empty; one found damaged later, or a write the file system refuses, switches the
/// database off for the rest of the run (lookups miss, writes are dropped). Either is said once
/// through `warn`, and no output is lost: outputs and their records are files of their own.
final class IndexDatabase: Sendable {
    /// A value bound to a statement's parameter or read from a column.
    enum Value: Sendable, Equatable {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
        case null
    }

    /// One result row, read while the query runs.
    struct Row: ~Copyable {
        fileprivate let statement: OpaquePointer

        /// Column `index` as an integer (0 when null).
        func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }
        /// Column `index` as a number (0 when null).
        func real(_ index: Int32) -> Double { sqlite3_column_double(statement, index) }
        /// Whether column `index` is null.
        func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }
        /// Column `index` as text; nil when null.
        func text(_ index: Int32) -> String? {
            guard sqlite3_column_type(statement, index) != SQLITE_NULL,
                  let bytes = sqlite3_column_text(statement, index) else { return nil }
            return String(cString: bytes)
        }
        /// Column `index` as bytes (a blob or text), handed to `body` in place: valid only
        /// while it runs. Empty when null.
        func withBytes<T>(_ index: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
            let start = sqlite3_column_blob(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            return body(UnsafeRawBufferPointer(start: count > 0 ? start : nil, count: count))
        }
    }

    /// The database file.
    let path: String
    /// Whether it was opened for reading only (`--dry-run`, `explain`, `cache stats`).
    let readOnly: Bool
    private let state: Mutex<State>
    private let warn: @Sendable (String) -> Void

    fileprivate struct State: @unchecked Sendable {  // the pointers are used under the lock only
        var connection: OpaquePointer?
        var statements: [String: OpaquePointer] = [:]
        /// The file and how it was opened (for `fail`, which sets a damaged file aside).
        var path = ""
        var readOnly = false
        /// Hears of a write the file system refused (full, read only, failing), instead of
        /// the warning `fail` would give.
        var refused: (@Sendable (String) -> Void)?
        /// Whether the connection was tried (it is opened at the first use).
        var opened = false
        /// Whether the database has failed this run (or never opened).
        var off = false
    }

    /// The page cache of a connection, in KiB.
    static let pageCacheKiB = 256

    /// How long a statement waits for another process's write before it gives up.
    static let busyMilliseconds: Int32 = 10_000

    /// The database at `path`, opened at its first use (a warm run over local files uses it
    /// only for its run log, at the end), and then created with its tables unless `readOnly`. A
    /// file that is not a database of ours is set aside (`path.damaged`) and a new one started;
    /// `warn` hears of it once. Read only, a missing file is an empty database.
    init(path: String, readOnly: Bool, warn: @escaping @Sendable (String) -> Void,
         refused: (@Sendable (String) -> Void)? = nil) {
        self.path = path
        self.readOnly = readOnly
        self.warn = warn
        var unopened = State()
        unopened.path = path
        unopened.readOnly = readOnly
        unopened.refused = refused
        state = Mutex(unopened)
    }

    deinit {
        state.withLock { state in
            for statement in state.statements.values { sqlite3_finalize(statement) }
            if let connection = state.connection { sqlite3_close_v2(connection) }
        }
    }

    /// Closes the connection (SQLite then folds the write-ahead log into the file and removes
    /// it, unless another process has the database open); the database answers nothing after.
    func close() {
        state.withLock { state in
            state.opened = true
            for statement in state.statements.values { sqlite3_finalize(statement) }
            state.statements = [:]
            if let connection = state.connection { sqlite3_close_v2(connection) }
            state.connection = nil
            state.off = true
        }
    }

    /// Whether the database answers: false once it failed, and read only when there is none.
    var isOn: Bool { state.withLock { Self.ensureOpen(&$0, warn: warn) } }

    /// Runs `sql` with `values` bound in order, for its effect; false when it did not run.
    @discardableResult
    func execute(_ sql: String, _ values: [Value] = []) -> Bool {
        query(sql, values) { _ in }
    }

    /// Runs `sql` (an `INSERT`, `UPDATE` or `DELETE`) with `values`; the rows it changed, 0 when
    /// it did not run.
    func changing(_ sql: String, _ values: [Value] = []) -> Int {
        state.withLock { state in
            guard Self.run(sql, values, in: &state, warn: warn, { _ in }), let connection = state.connection
            else { return 0 }
            return Int(sqlite3_changes(connection))
        }
    }

    /// Runs `sql` with `values` bound in order, handing each result row to `body`; false when it
    /// did not run to its end (a busy database past the timeout, or one that failed). `body`
    /// runs under the database's lock: it must not use the database itself.
    @discardableResult
    func query(_ sql: String, _ values: [Value] = [], _ body: (borrowing Row) -> Void) -> Bool {
        state.withLock { state in Self.run(sql, values, in: &state, warn: warn, body) }
    }

    /// Runs `body` in one transaction (one write of the file for all its statements), which
    /// `body` runs through the `Transaction` it is given; false when it could not commit.
    @discardableResult
    func transaction(_ body: (inout Transaction) -> Void) -> Bool {
        state.withLock { state in
            guard Self.ensureOpen(&state, warn: warn), !readOnly else { return false }
            guard Self.run("BEGIN IMMEDIATE", [], in: &state, warn: warn, { _ in }) else { return false }
            var transaction = Transaction(state: state, warn: warn)
            body(&transaction)
            state = transaction.state
            guard transaction.ok, Self.run("COMMIT", [], in: &state, warn: warn, { _ in }) else {
                if !state.off { _ = Self.run("ROLLBACK", [], in: &state, warn: warn, { _ in }) }
                return false
            }
            return true
        }
    }

    /// Statements run inside `transaction`, on the connection it holds.
    struct Transaction: ~Copyable {
        fileprivate var state: State
        fileprivate let warn: @Sendable (String) -> Void
        /// Whether every statement so far ran.
        fileprivate(set) var ok = true

        /// Runs `sql` with `values`, as `IndexDatabase.execute` does.
        mutating func execute(_ sql: String, _ values: [Value] = []) {
            guard ok else { return }
            ok = IndexDatabase.run(sql, values, in: &state, warn: warn, { _ in })
        }

        /// Runs `sql` with `values`, as `IndexDatabase.query` does.
        mutating func query(_ sql: String, _ values: [Value] = [], _ body: (borrowing Row) -> Void) {
            guard ok else { return }
            ok = IndexDatabase.run(sql, values, in: &state, warn: warn, body)
        }
    }

    /// Opens the connection on the first call; false when the database is off.
    private static func ensureOpen(_ state: inout State, warn: @Sendable (String) -> Void) -> Bool {
        if state.opened { return !state.off }
        state.opened = true
        if state.readOnly && !FileManager.default.fileExists(atPath: state.path) {
            state.off = true
        } else if let connection = open(state.path, readOnly: state.readOnly, warn: warn, refused: state.refused) {
            state.connection = connection
        } else {
            state.off = true
        }
        return !state.off
    }

    /// Runs `sql` on the state's connection; a damaged database or a refused write turns it off.
    private static func run(_ sql: String, _ values: [Value], in state: inout State,
                            warn: @Sendable (String) -> Void, _ body: (borrowing Row) -> Void) -> Bool {
        guard ensureOpen(&state, warn: warn) else { return false }
        let (path, readOnly) = (state.path, state.readOnly)
        guard !state.off, let connection = state.connection else { return false }
        let statement: OpaquePointer
        if let prepared = state.statements[sql] {
            statement = prepared
        } else {
            var made: OpaquePointer?
            let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil)
            guard code == SQLITE_OK, let made else {
                fail(code, connection, &state, path: path, readOnly: readOnly, warn: warn)
                return false
            }
            state.statements[sql] = made
            statement = made
        }
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .integer(let number): sqlite3_bind_int64(statement, index, number)
            case .real(let number): sqlite3_bind_double(statement, index, number)
            case .text(let text): tg_sqlite_bind_text(statement, index, text, -1)
            case .blob(let bytes) where bytes.isEmpty: sqlite3_bind_zeroblob(statement, index, 0)
            case .blob(let bytes): bytes.withUnsafeBytes { _ = tg_sqlite_bind_blob(statement, index, $0.baseAddress, Int32($0.count)) }
            case .null: sqlite3_bind_null(statement, index)
            }
        }
        while true {
            let code = sqlite3_step(statement)
            switch code {
            case SQLITE_ROW:
                body(Row(statement: statement))
            case SQLITE_DONE:
                return true
            default:
                fail(code, connection, &state, path: path, readOnly: readOnly, warn: warn)
                return false
            }
        }
    }

    /// After `code`: a busy database past the timeout only fails the statement; damage, a full
    /// disk or a refused write turn the database off for the rest of the run, said once.
    private static func fail(_ code: Int32, _ connection: OpaquePointer, _ state: inout State,
                             path: String, readOnly: Bool, warn: @Sendable (String) -> Void) {
        let primary = code & 0xff
        guard primary != SQLITE_BUSY, primary != SQLITE_LOCKED else { return }
        state.off = true
        let message = String(cString: sqlite3_errmsg(connection))
        if !readOnly, primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB {
            // Set aside now, so that the next run starts a sound one.
            for suffix in ["-wal", "-shm"] { unlink(path + suffix) }
            rename(path, path + ".damaged")
            warn("\(path) is damaged (\(message)): set aside as index.db.damaged; this run goes on without it "
                 + "and the next starts it empty (no output is lost)")
        } else if let refused = state.refused,
                  [SQLITE_FULL, SQLITE_IOERR, SQLITE_READONLY, SQLITE_CANTOPEN].contains(primary) {
            refused(message)
        } else {
            warn("the cache's index stopped answering (\(message)): this run goes on without it")
        }
    }
}
