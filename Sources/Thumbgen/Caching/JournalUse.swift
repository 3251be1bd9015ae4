import Foundation

/// When the records the warm journals vouch for were last used.
///
/// A warm run does not mark each record it serves from a journal used (100,000 uses cost a
/// third of such a run, every ten minutes): the journal's use (its row in the database's
/// `journals`) stands for the last use of every record its entries and sources name, since a
/// journal is kept as it is only by a run that found every entry true (and is marked used then,
/// `WarmJournal.save`), and is otherwise written anew. So a record's last use is the later of
/// its own and that of the newest journal naming it. A journal that does not read whole and
/// undamaged names nothing.
struct JournalUse {
    /// The latest journal time naming each output record (by key) and `files` row (by path),
    /// in seconds since 1970.
    private var outputs: [String: Double] = [:]
    private var files: [String: Double] = [:]

    /// What the journals in `layout` say, with their uses in `database`.
    init(layout: CacheLayout, database: IndexDatabase) {
        let folder = layout.base + "/journals"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            let path = folder + "/" + name
            guard let seconds = WarmJournal.lastUse(of: path, in: database),
                  let bytes = WarmJournal.read(path), let index = JournalIndex(bytes: bytes) else { continue }
            index.forEachRecord { kind, name in
                switch kind {
                case .outputs: outputs[name] = max(outputs[name] ?? 0, seconds)
                case .files: files[name] = max(files[name] ?? 0, seconds)
                default: break
                }
            }
        }
    }

    /// When the output record `entry` was last used: its own time, or a journal's if later.
    func lastUse(of entry: CacheLayout.Entry) -> Double {
        max(entry.modified, outputs[entry.name] ?? 0)
    }

    /// When the `files` row of `path`, last used at `lastUsed`, was last used: then, or when a
    /// journal naming it was, if later.
    func lastUse(ofFile path: String, lastUsed: Double) -> Double {
        max(lastUsed, files[path] ?? 0)
    }
}
