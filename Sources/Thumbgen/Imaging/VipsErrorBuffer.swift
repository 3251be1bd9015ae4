import CVips
import Foundation

/// libvips reports errors through one process-wide text buffer; this reads and clears it.
///
/// Loaders also leave the text of warnings they only counted there, which a later failure
/// would report as its own (a PNG blamed for a JPEG's stray bytes), so `clear()` runs before
/// each source is opened. The buffer is shared by every thread, so that clear can, rarely,
/// take another row's text before it is read; that row then says libvips gave no detail, as
/// do failures of decoders that report only through (silenced) warnings.
enum VipsErrorBuffer {
    /// What a failure says when libvips left no text.
    static let noDetail = "libvips gave no detail (THUMBGEN_VIPS_WARNINGS=1 prints its warnings)"

    /// Drops whatever text earlier operations left.
    static func clear() {
        vips_error_clear()
    }

    /// Returns the buffered error text (trimmed, last line first-class) and clears the buffer.
    static func take() -> String {
        guard let text = vips_error_buffer_copy() else { return noDetail }
        defer { g_free(text) }
        let message = String(cString: text)
            .split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: "; ")
        return message.isEmpty ? noDetail : message
    }
}
