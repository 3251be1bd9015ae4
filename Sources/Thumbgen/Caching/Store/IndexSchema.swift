/// The tables of the cache's database (`IndexDatabase`), as `sqlite3 CACHE/index.db .schema`
/// shows them. A change to a table is a new `version` with its own step in `steps`: a database
/// made by an older thumbgen is brought up to date when it is opened, and one made by a newer
/// thumbgen is left alone (the run goes on without it).
enum IndexSchema {
    /// The schema this thumbgen makes (`PRAGMA user_version`).
    static let version: Int64 = 7

    /// The statements that take a database from version `index` to `index + 1`. A step, once
    /// released, never changes: its text is what older databases hold.
    static let steps: [[String]] = [
        [
            """
            CREATE TABLE urls (
              url TEXT PRIMARY KEY,         -- the source URL, as the manifest gives it
              digest TEXT NOT NULL,         -- SHA-256 of the body it served: its blob
              etag TEXT,                    -- validators for a conditional request
              last_modified TEXT,
              stored_at REAL NOT NULL,      -- when fetched or revalidated (seconds since 1970)
              fresh_for REAL NOT NULL,      -- seconds the body stays fresh after stored_at
              last_used REAL NOT NULL       -- the last run that used it (cache prune)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE recipes (
              source TEXT NOT NULL,         -- 'file PATH' or 'url URL'
              key TEXT NOT NULL,            -- an output key made of it (SHA-256)
              recipe TEXT NOT NULL,         -- the text that key is the digest of
              noted REAL NOT NULL,          -- when it was first noted: the newest 32 are kept
              last_used REAL NOT NULL,      -- the last run that rendered the source (cache prune)
              PRIMARY KEY (source, key)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE runs (
              ended_at REAL NOT NULL,       -- seconds since 1970
              command TEXT NOT NULL,        -- render or warm
              rows INTEGER NOT NULL, hit INTEGER NOT NULL, miss INTEGER NOT NULL,
              revalidated INTEGER NOT NULL, failed INTEGER NOT NULL,
              seconds REAL NOT NULL,        -- wall time
              remote TEXT                   -- the remote cache's counts, 'hit=1 miss=2 ...'; null without one
            )
            """,
        ],
        [
            """
            CREATE TABLE uses (
              kind TEXT NOT NULL,           -- 'outputs' or 'files': a record file under v1/
              key TEXT NOT NULL,            -- its name (the output key, the SHA-256 of the path)
              last_used REAL NOT NULL,      -- the last run that read it (cache prune)
              PRIMARY KEY (kind, key)
            ) WITHOUT ROWID
            """,
        ],
        [
            """
            CREATE TABLE files (
              path TEXT PRIMARY KEY,        -- a local source file, as the run named it
              device INTEGER NOT NULL,      -- its stamp when it was hashed: device, inode,
              inode INTEGER NOT NULL,       --   size and modification time; while the file's
              size INTEGER NOT NULL,        --   stamp is the same, so is its digest
              mtime_s INTEGER NOT NULL,
              mtime_ns INTEGER NOT NULL,
              digest TEXT NOT NULL,         -- SHA-256 of its bytes
              written INTEGER NOT NULL,     -- the generation ('files') that wrote the row
              last_used REAL NOT NULL       -- the last run that used it (cache prune)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE generations (
              name TEXT PRIMARY KEY,        -- 'files'
              value INTEGER NOT NULL        -- raised by every change to the table: the warm
            ) WITHOUT ROWID                 --   journal trusts rows while it is what it saw
            """,
            // A random start, so that a journal saved against an earlier database (one set
            // aside as damaged, or deleted) never finds its generation again.
            "INSERT INTO generations (name, value) VALUES ('files', (random() & 0xFFFFFFFFFFFF) + 1)",
            """
            CREATE TRIGGER files_removed AFTER DELETE ON files
            BEGIN UPDATE generations SET value = value + 1 WHERE name = 'files'; END
            """,
            "DELETE FROM uses WHERE kind = 'files'",
        ],
        [
            """
            CREATE TABLE journals (
              name TEXT PRIMARY KEY,        -- a warm journal's file under v1/journals/
              last_used REAL NOT NULL       -- the last run it served or that wrote it: the last
            ) WITHOUT ROWID                 --   use of every record it names (cache prune)
            """,
        ],
        [
            // The warm journals move from files of their own into these three tables.
            "DROP TABLE journals",
            """
            CREATE TABLE journals (
              id INTEGER PRIMARY KEY,       -- what its sources and entries name it by
              out_path TEXT NOT NULL UNIQUE, -- the --out folder it is of (real path), and that
              out_device INTEGER NOT NULL,  --   folder's device and inode: another folder at the
              out_inode INTEGER NOT NULL,   --   same path later is not trusted
              files_generation INTEGER NOT NULL,   -- the generations it was saved against:
              outputs_generation INTEGER NOT NULL, --   while they hold, so do its records
              last_used REAL NOT NULL       -- the last run it served or that wrote it: the last
            )                               --   use of every record it names (cache prune)
            """,
            """
            CREATE TABLE journal_sources (
              journal INTEGER NOT NULL,     -- journals.id
              ordinal INTEGER NOT NULL,     -- 0, 1, 2, ... within the journal
              path TEXT NOT NULL,           -- a local source file, as the run named it
              device INTEGER NOT NULL, inode INTEGER NOT NULL, size INTEGER NOT NULL,
              mtime INTEGER NOT NULL, ctime INTEGER NOT NULL, -- its stamp (nanoseconds)
              digest BLOB NOT NULL,         -- SHA-256 of its bytes (32 bytes)
              written INTEGER NOT NULL,     -- the 'files' generation that wrote its files row
              PRIMARY KEY (journal, ordinal)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE journal_entries (
              journal INTEGER NOT NULL,     -- journals.id
              hash INTEGER NOT NULL,        -- FNV-1a of source path, key, out template, {row}
              key BLOB NOT NULL,            -- the output key (32 bytes): v1/outputs/<hex>
              proof BLOB NOT NULL,          -- what it proved, packed (JournalEntry): the source's
                                            --   ordinal, the output record, the stamps of that
                                            --   record and of the --out file, the path
              PRIMARY KEY (journal, hash)
            ) WITHOUT ROWID
            """,
            // Raised before and after a process changes output records (`RecordChanges`).
            "INSERT INTO generations (name, value) VALUES ('outputs', (random() & 0xFFFFFFFFFFFF) + 1)",
        ],
        [
            """
            CREATE TABLE orphans (
              digest TEXT PRIMARY KEY,      -- a blob no record named when cache prune looked
              first_seen REAL NOT NULL      -- the prune that first found it so: one an hour
            ) WITHOUT ROWID                 --   later removes it if still unnamed
            """,
        ],
        [
            // The record of placed files (`PlacedIndex`): what `--prune` may remove.
            """
            CREATE TABLE placed (
              out_path TEXT NOT NULL,       -- the --out folder (its real path)
              path TEXT NOT NULL,           -- a file thumbgen placed there, relative to it
              row TEXT NOT NULL,            -- the id of the row that placed it last
              source TEXT NOT NULL,         -- that row's source identity: the shard it is in
              size INTEGER NOT NULL,        -- its size and SHA-256 as placed: a file that no
              digest TEXT NOT NULL,         --   longer has them is the user's, never removed
              PRIMARY KEY (out_path, path)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE placed_folders (
              out_path TEXT NOT NULL,       -- the --out folder (its real path)
              path TEXT NOT NULL,           -- a folder thumbgen made there, relative to it
              PRIMARY KEY (out_path, path)
            ) WITHOUT ROWID
            """,
            """
            CREATE TABLE placed_runs (
              out_path TEXT NOT NULL,       -- the --out folder (its real path)
              fingerprint INTEGER NOT NULL, -- a run whose placed files are all in placed, as it
              PRIMARY KEY (out_path, fingerprint) --  placed them: its like saves nothing
            ) WITHOUT ROWID
            """,
        ],
    ]
}
