import CVips
import Foundation

/// thumbgen's own profiles as files libvips can open: lcms takes a conversion's target profile
/// only by file name. Each is written once per process into a memory file (`memfd`), so
/// nothing lands on disk and nothing is left behind.
enum VipsProfileFile {
    /// The compact Display P3 profile (`ICCProfileWriter.displayP3`), or nil when the memory
    /// file could not be made.
    static let displayP3: String? = write(ICCProfileWriter.displayP3, name: "thumbgen-display-p3.icc")

    private static func write(_ bytes: [UInt8], name: String) -> String? {
        let descriptor = tg_memory_file(name)
        guard descriptor >= 0 else { return nil }
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            close(descriptor)
            return nil
        }
        return "/proc/self/fd/\(descriptor)"
    }
}
