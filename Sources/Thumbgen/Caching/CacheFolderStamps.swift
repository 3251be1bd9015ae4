import Foundation

/// The stamps of the cache's fan-out folders that hold local-file and output records
/// (`v1/files/00` … `v1/files/ff`, `v1/outputs/00` … `v1/outputs/ff`), taken when a run
/// starts.
///
/// A folder's modification and change times move whenever a name in it is created, removed
/// or renamed (POSIX `link`, `unlink`, `rename`), and a record is only ever replaced by
/// renaming a new file over it. So while a folder's stamp is what it was, every record in it
/// is the very file (the same inode) it was then: the warm journal trusts its records without
/// a `stat` each. Marking a record used moves its own times, not its folder's.
struct CacheFolderStamps: Equatable, Sendable {
    /// 512 stamps: the 256 `files` folders, then the 256 `outputs` folders; nil for a folder
    /// that is missing, or (as saved) one that had changed too recently to be trusted.
    private(set) var stamps: [FileStamp?]

    static let count = 512

    /// The index of the folder holding the record named by the digest whose first byte is
    /// `byte`.
    static func files(_ byte: UInt8) -> Int { Int(byte) }
    static func outputs(_ byte: UInt8) -> Int { 256 + Int(byte) }

    init(stamps: [FileStamp?]) {
        self.stamps = stamps
    }

    /// The folders of `layout` as they are now.
    init(of layout: CacheLayout) {
        var stamps = [FileStamp?]()
        stamps.reserveCapacity(Self.count)
        for kind in [CacheLayout.Kind.files, .outputs] {
            let folder = layout.folder(kind) + "/"
            for byte in 0...255 {
                stamps.append(FileStamp.of(folder + ContentDigest.hex(CollectionOfOne(UInt8(byte)))))
            }
        }
        self.stamps = stamps
    }

    /// These stamps as a journal may keep them: only those of folders last changed well
    /// before `seenAt` (when they were taken), so that a change in the same clock tick cannot
    /// hide behind an equal stamp.
    func settled(seenAt: Int64) -> CacheFolderStamps {
        CacheFolderStamps(stamps: stamps.map { $0.flatMap { $0.settled(seenAt: seenAt) ? $0 : nil } })
    }

    /// For each folder, whether `saved` (a journal's) vouches for it now: a settled stamp
    /// equal to the folder's stamp now.
    func stable(against saved: CacheFolderStamps) -> [Bool] {
        zip(stamps, saved.stamps).map { now, then in now != nil && now == then }
    }
}
