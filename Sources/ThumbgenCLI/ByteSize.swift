import ArgumentParser
import Foundation

/// A size in bytes as people write it on a command line: `512M`, `4G`, `1.5GiB`, `100000`.
/// Suffixes are binary (K = 1024), as `ulimit` and container limits read them.
struct ByteSize: ExpressibleByArgument {
    /// The size.
    var bytes: Int64

    init?(argument: String) {
        var text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        for unit in ["IB", "B"] where text.hasSuffix(unit) { text.removeLast(unit.count) }
        let scales: [Character: Double] = ["K": 0x1p10, "M": 0x1p20, "G": 0x1p30, "T": 0x1p40]
        var scale = 1.0
        if let last = text.last, let unit = scales[last] {
            scale = unit
            text.removeLast()
        }
        guard let value = Double(text), value > 0, value * scale < Double(Int64.max) else { return nil }
        bytes = Int64(value * scale)
    }
}
