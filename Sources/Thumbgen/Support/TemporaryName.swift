import Foundation

/// Names of the temporary files and folders thumbgen writes before renaming them into place.
///
/// thumbgen makes one form, and recognises a second that earlier versions made:
///
///     .NAME.tg-RANDOM.tmp             locked (RANDOM: 13 base-36 digits): its writer holds an
///                                     advisory lock on it (on the `.lock` file inside, for a
///                                     folder) while it exists, and the lock alone tells a live
///                                     one from a leftover
///     .NAME.tg-HOST-PID-RANDOM.tmp    legacy: made by thumbgen 0.2.0 and earlier (the report,
///                                     the contact sheet, downloads, a cleared cache); judged by
///                                     its lock when one is held, else by host and process id
///
/// A legacy name with no lock held is stale when it was made on this host by a process that no
/// longer runs, or, from another host, when it is older than an hour (no single write takes that
/// long). That test is kept so that an upgrade strands nothing, and is never applied to a
/// locked name: a process id means nothing across PID namespaces that share a hostname.
/// Anything not named in either form is never touched.
enum TemporaryName {
    /// A fresh locked-form name for `fileName`, for a file or folder whose writer locks it.
    static func locked(for fileName: String) -> String {
        ".\(fileName).tg-\(random()).tmp"
    }

    /// What a name says about its temporary.
    enum Form: Equatable {
        /// The locked form: only the lock tells.
        case locked
        /// The legacy form: the host id and process id of its writer.
        case legacy(host: Substring, pid: Int32)
    }

    /// The form of `name`, or nil when it is not a thumbgen temporary's.
    static func form(of name: String) -> Form? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp"),
              let marker = name.range(of: ".tg-", options: .backwards) else { return nil }
        let parts = name[marker.upperBound...].dropLast(4).split(separator: "-", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where isRandom(parts[0]):
            return .locked
        case 3:
            guard let pid = Int32(parts[1]) else { return nil }
            return .legacy(host: parts[0], pid: pid)
        default:
            return nil
        }
    }

    /// Whether the legacy-form `name`, found with modification time `modified`, is a temporary
    /// of a thumbgen process that is gone, judged by its name alone; false for any other name
    /// (a locked-form name cannot be judged without trying its lock: `TemporarySweeper`).
    static func isStale(_ name: String, modified: Date, now: Date = Date()) -> Bool {
        guard case .legacy(let writerHost, let pid) = form(of: name) else { return false }
        if writerHost == Substring(host) {
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        return now.timeIntervalSince(modified) > 3600
    }

    /// Removes the temporary files directly inside `folder` whose writers are gone; returns how
    /// many.
    @discardableResult
    static func sweep(_ folder: String) -> Int {
        TemporarySweeper.sweep(folder, filesOnly: true).count
    }

    /// Eight hex digits naming this machine (from its hostname), as legacy names carry them.
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(ContentDigest.of(text: name).prefix(8))
    }()

    /// Thirteen random base-36 digits (a whole `UInt64`): a fixed width, so that a file of
    /// someone else's that happens to end in `.tg-WORD.tmp` is not taken for a locked one.
    private static func random() -> String {
        let digits = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return String(repeating: "0", count: max(0, 13 - digits.count)) + digits
    }

    /// Whether `word` is as `random()` makes them.
    private static func isRandom(_ word: Substring) -> Bool {
        word.utf8.count == 13 && word.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) }
    }
}
