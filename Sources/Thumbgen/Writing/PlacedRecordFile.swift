import Foundation

/// The record of placed files of a run without a cache: `--out/.thumbgen-placed`, a file
/// thumbgen owns (hidden, so folder walks skip it; never an output, never pruned). JSON Lines:
/// a head line `{"thumbgen_placed":1}`, then one line per file (`out`, `id`, `source`,
/// `bytes`, `sha256`) and one per folder thumbgen made (`{"folder":"2024"}`).
public struct PlacedRecordFile: PlacedRecordStoring {
    /// The file's name inside `--out`.
    public static let name = ".thumbgen-placed"
    /// The file's path.
    public let path: URL

    /// The record of the `--out` folder `outputDirectory`.
    public init(outputDirectory: URL) {
        path = outputDirectory.appendingPathComponent(Self.name)
    }

    private struct Head: Codable { var thumbgen_placed: Int }
    private struct Folder: Codable { var folder: String }

    /// Never: without a cache every row is rendered anyway, and the file is read whole.
    public func holds(fingerprint: UInt64) -> Bool { false }

    /// Whether the file is there and begins with this version's head.
    public func hasRecord() -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path.path) else { return false }
        defer { try? handle.close() }
        guard let start = try? handle.read(upToCount: 256),
              let head = start.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first
        else { return false }
        return (try? JSONDecoder().decode(Head.self, from: head))?.thumbgen_placed == 1
    }

    /// The record; an unreadable file, or one of another version, reads as empty (a prune
    /// then removes nothing: only what is on record is ever removed).
    public func load() -> PlacedRecord {
        guard let data = try? Data(contentsOf: path) else { return PlacedRecord() }
        let decoder = JSONDecoder()
        var lines = data.split(separator: UInt8(ascii: "\n"))[...]
        guard let first = lines.popFirst(), (try? decoder.decode(Head.self, from: first))?.thumbgen_placed == 1 else {
            return PlacedRecord()
        }
        var record = PlacedRecord()
        for line in lines {
            if let file = try? decoder.decode(PlacedFile.self, from: line) {
                record.files[file.path] = file
            } else if let folder = try? decoder.decode(Folder.self, from: line) {
                record.folders.insert(folder.folder)
            }
        }
        return record
    }

    /// Writes the whole file again with `changes` made (a temporary, then `rename`, so a
    /// killed run leaves the old record whole); false when it could not.
    @discardableResult
    public func save(_ changes: PlacedChanges, to previous: PlacedRecord, fingerprint: UInt64) -> Bool {
        guard !changes.isEmpty else { return true }
        // The changes go onto the file as it is now, under a lock on the folder: shards over one
        // --out saving at once each add theirs, and none loses another's.
        let folder = open(path.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { return false }
        defer { close(folder) }
        guard flock(folder, LOCK_EX) == 0 else { return false }
        defer { flock(folder, LOCK_UN) }
        let record = changes.applied(to: load())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = Data("{\"thumbgen_placed\":1}\n".utf8)
        for file in record.files.values.sorted(by: { $0.path < $1.path }) {
            guard let line = try? encoder.encode(file) else { continue }
            text.append(line)
            text.append(UInt8(ascii: "\n"))
        }
        for folder in record.folders.sorted() {
            guard let line = try? encoder.encode(Folder(folder: folder)) else { continue }
            text.append(line)
            text.append(UInt8(ascii: "\n"))
        }
        let temporary = path.deletingLastPathComponent()
            .appendingPathComponent(Self.name + ".\(getpid()).tmp")
        guard (try? text.write(to: temporary)) != nil else { return false }
        guard rename(temporary.path, path.path) == 0 else {
            unlink(temporary.path)
            return false
        }
        return true
    }
}
