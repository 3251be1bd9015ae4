import Foundation

/// Hooks that only tests set, through the environment, to open a race window on purpose. Each
/// is read once; unset (always, outside tests) they cost one branch.
enum FaultInjection {
    private static let pauseAfterHash: Double? = ProcessInfo.processInfo
        .environment["THUMBGEN_FAULT_PAUSE_AFTER_HASH"].flatMap(Double.init)

    /// `THUMBGEN_FAULT_PAUSE_AFTER_HASH=SECONDS`: waits after a local source is hashed and before
    /// it is decoded, so that a test can rewrite the file in between.
    static func pauseAfterHashing() {
        if let seconds = pauseAfterHash { Thread.sleep(forTimeInterval: seconds) }
    }
}
