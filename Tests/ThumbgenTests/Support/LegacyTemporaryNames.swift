import Foundation
@testable import Thumbgen

extension TemporaryName {
    /// A legacy-form name for `fileName`, as thumbgen 0.2.0 and earlier made them (this host,
    /// process `pid`): what a leftover of those versions is called.
    static func legacy(for fileName: String, pid: Int32 = getpid()) -> String {
        ".\(fileName).tg-\(host)-\(pid)-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
    }
}
