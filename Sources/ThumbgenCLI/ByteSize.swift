import ArgumentParser
import Foundation
import Thumbgen

/// A size in bytes as people write it on a command line: `512M`, `4G`, `1.5GiB`, `100000`.
/// Suffixes are binary (K = 1024), as `ulimit` and container limits read them.
struct ByteSize: ExpressibleByArgument {
    /// The size.
    var bytes: Int64

    init?(argument: String) {
        guard let bytes = ByteCount.parse(argument), bytes > 0 else { return nil }
        self.bytes = bytes
    }
}
