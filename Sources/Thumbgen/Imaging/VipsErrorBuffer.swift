import CVips
import Foundation

/// libvips reports errors through one process-wide text buffer; this reads and clears it.
enum VipsErrorBuffer {
    /// Returns the buffered error text (trimmed, last line first-class) and clears the buffer.
    static func take() -> String {
        guard let text = vips_error_buffer_copy() else { return "unknown libvips error" }
        defer { g_free(text) }
        let message = String(cString: text)
            .split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
        return message.isEmpty ? "unknown libvips error" : message
    }
}
