import Foundation

/// When the records the warm journals vouch for were last used.
///
/// A warm run does not mark each record it serves from a journal used (100,000 uses cost a
/// third of such a run, every ten minutes): the journal's use (`journals.last_used`) stands for
/// the last use of every record its entries and sources name, since a journal is marked used
/// only by a run that found every entry true (`WarmJournal.save`), and is otherwise written
/// anew or, by a run that proved nothing new (a subset of the rows), left as it was, unmarked.
/// So a record's last use is the later of its own and that of the newest journal naming it;
/// a record served only by such subset runs since counts as used when the journal was last
/// marked, which can make `cache prune --max-age` take it early (a render, never a wrong output).
struct JournalUse {
    /// The latest journal use naming each output record (by key) and `files` row (by path),
    /// in seconds since 1970.
    private var outputs: [String: Double] = [:]
    private var files: [String: Double] = [:]

    /// What the journals in `database` say.
    init(database: IndexDatabase) {
        database.query("""
            SELECT e.key, max(j.last_used) FROM journal_entries e JOIN journals j ON j.id = e.journal GROUP BY e.key
            """) { row in
            let key = row.withBytes(0) { ContentDigest.hex($0) }
            outputs[key] = row.real(1)
        }
        database.query("""
            SELECT s.path, max(j.last_used) FROM journal_sources s JOIN journals j ON j.id = s.journal GROUP BY s.path
            """) { row in
            if let path = row.text(0) { files[path] = row.real(1) }
        }
    }

    /// When the newest journal naming the output record `key` was last used; nil when none names it.
    func lastUse(ofOutput key: String) -> Double? {
        outputs[key]
    }

    /// When the `files` row of `path`, last used at `lastUsed`, was last used: then, or when a
    /// journal naming it was, if later.
    func lastUse(ofFile path: String, lastUsed: Double) -> Double {
        max(lastUsed, files[path] ?? 0)
    }
}
