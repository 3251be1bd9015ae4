import Foundation

/// Names of the temporary files thumbgen writes before renaming them into place, and how to
/// tell one left behind by a process that died (SIGKILL, power loss) from one still in use.
///
/// A name carries this host's id and this process's id: `.NAME.tg-HOST-PID-RANDOM.tmp`. A file
/// so named is stale when it was made on this host by a process that no longer runs, or, from
/// another host sharing the folder, when it is older than an hour (no single write takes that
/// long). Anything not named this way is never touched.
enum TemporaryName {
    /// A fresh temporary name for `fileName`.
    static func make(for fileName: String) -> String {
        ".\(fileName).tg-\(host)-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36)).tmp"
    }

    /// Whether `name`, found in a folder with modification time `modified`, is a temporary
    /// file of a thumbgen process that is gone.
    static func isStale(_ name: String, modified: Date, now: Date = Date()) -> Bool {
        guard name.hasPrefix("."), name.hasSuffix(".tmp"),
              let marker = name.range(of: ".tg-", options: .backwards) else { return false }
        let parts = name[marker.upperBound...].dropLast(4).split(separator: "-")
        guard parts.count == 3, let pid = Int32(parts[1]) else { return false }
        if parts[0] == Substring(host) {
            return kill(pid, 0) != 0 && errno == ESRCH
        }
        return now.timeIntervalSince(modified) > 3600
    }

    /// Removes the stale temporary files directly inside `folder`; returns how many.
    @discardableResult
    static func sweep(_ folder: String) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let path = folder + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
            if isStale(name, modified: modified), unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Eight hex digits naming this machine (from its hostname), so that process ids from
    /// different hosts sharing a folder are not confused.
    static let host: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, buffer.count - 1)
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(ContentDigest.of(text: name).prefix(8))
    }()
}
