import Foundation

extension OutputPruner {
    /// Whether `folder` holds any file (at any depth, dot files and folders aside): asked
    /// before a run places anything, so that a prune with no record of earlier runs can say
    /// that their files, if these are any, could not be pruned. Stops at the first one found.
    public static func holdsFiles(in folder: URL) -> Bool {
        var pending = [folder.path]
        while let path = pending.popLast() {
            guard let listing = opendir(path) else { continue }
            defer { closedir(listing) }
            while let entry = readdir(listing) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    let bytes = Array(raw)
                    return String(decoding: bytes[..<(bytes.firstIndex(of: 0) ?? bytes.count)], as: UTF8.self)
                }
                guard !name.hasPrefix(".") else { continue }
                var info = stat()
                guard lstat(path + "/" + name, &info) == 0 else { continue }
                guard (info.st_mode & S_IFMT) == S_IFDIR else { return true }
                pending.append(path + "/" + name)
            }
        }
        return false
    }
}
