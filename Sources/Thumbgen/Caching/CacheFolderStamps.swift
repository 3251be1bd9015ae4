import Foundation

/// What a run saw, when it started, of the cache records a warm journal relies on: the stamps
/// of the fan-out folders that hold output records (`v1/outputs/00` … `v1/outputs/ff`), and the
/// generation of the database's `files` table.
///
/// A folder's modification and change times move whenever a name in it is created, removed
/// or renamed (POSIX `link`, `unlink`, `rename`), and a record is only ever replaced by
/// renaming a new file over it. So while a folder's stamp is what it was, every record in it
/// is the very file (the same inode) it was then: the warm journal trusts its records without
/// a `stat` each. Likewise every transaction that writes or removes a `files` row raises the
/// table's generation (`FileIndex.generation`): while it is what it was, so is every row.
struct CacheFolderStamps: Equatable, Sendable {
    /// 256 stamps, of the `outputs` folders; nil for a folder that is missing, or (as saved) one
    /// that had changed too recently to be trusted.
    private(set) var stamps: [FileStamp?]
    /// The `files` generation; 0 when unknown (no database), which vouches for nothing.
    private(set) var filesGeneration: Int64

    static let count = 256

    /// The index of the folder holding the output record whose key's first byte is `byte`.
    static func outputs(_ byte: UInt8) -> Int { Int(byte) }

    init(stamps: [FileStamp?], filesGeneration: Int64) {
        self.stamps = stamps
        self.filesGeneration = filesGeneration
    }

    /// The folders of `layout` and the generation of `files` as they are now; the generation is
    /// tracked from here on (`FileIndex.trackGeneration`).
    init(of layout: CacheLayout, files: FileIndex) {
        // The generation first: a row written while the folders are read is then not vouched for.
        filesGeneration = files.trackGeneration() ?? 0
        let folder = layout.folder(.outputs) + "/"
        stamps = (0...255).map { FileStamp.of(folder + ContentDigest.hex(CollectionOfOne(UInt8($0)))) }
    }

    /// These stamps as a journal may keep them: only those of folders last changed well
    /// before `seenAt` (when they were taken), so that a change in the same clock tick cannot
    /// hide behind an equal stamp. The generation is kept as it is: it is read, not timed.
    func settled(seenAt: Int64) -> CacheFolderStamps {
        CacheFolderStamps(stamps: stamps.map { $0.flatMap { $0.settled(seenAt: seenAt) ? $0 : nil } },
                          filesGeneration: filesGeneration)
    }

    /// For each folder, whether `saved` (a journal's) vouches for it now: a settled stamp
    /// equal to the folder's stamp now.
    func stable(against saved: CacheFolderStamps) -> [Bool] {
        zip(stamps, saved.stamps).map { now, then in now != nil && now == then }
    }

    /// These stamps with the generation `generation` (a run's own writes since, counted in).
    func with(filesGeneration generation: Int64) -> CacheFolderStamps {
        CacheFolderStamps(stamps: stamps, filesGeneration: generation)
    }

    /// Whether `saved` vouches for every `files` row: the same known generation.
    func filesStable(against saved: CacheFolderStamps) -> Bool {
        filesGeneration != 0 && filesGeneration == saved.filesGeneration
    }
}
