import Foundation

/// Names of the temporary files and folders thumbgen writes before renaming them into place:
///
///     .NAME.tg-RANDOM.tmp    RANDOM: 13 base-36 digits. Its writer holds an advisory lock on it
///                            (on the `.lock` file inside, for a folder) while it exists, and the
///                            lock alone tells a live one from a leftover.
///
/// Anything not named so is never taken for a temporary by its name. (thumbgen 0.2.0 made
/// `.NAME.tg-HOST-PID-RANDOM.tmp` names without locks; a leftover of those is no temporary by
/// this rule: `cache prune` and `cache clear` remove it from the cache by age, as anything else
/// there, and elsewhere it is left alone.)
enum TemporaryName {
    /// A fresh locked-form name for `fileName`, for a file or folder whose writer locks it.
    static func locked(for fileName: String) -> String {
        ".\(fileName).tg-\(random()).tmp"
    }

    /// Whether `name` is a temporary's name (`locked(for:)`'s form).
    static func isTemporary(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp"),
              let marker = name.range(of: ".tg-", options: .backwards) else { return false }
        return isRandom(name[marker.upperBound...].dropLast(4))
    }

    /// Removes the temporary files directly inside `folder` whose writers are gone; returns how
    /// many.
    @discardableResult
    static func sweep(_ folder: String) -> Int {
        TemporarySweeper.sweep(folder, filesOnly: true).count
    }

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
