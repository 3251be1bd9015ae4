import Foundation

/// Decides `format=auto`: the `out` template's extension, else the source's format, else JPEG
/// (for a source whose format has no name here, such as one an `--enable-loader` opened).
enum FormatResolver {
    static func resolve(_ choice: FormatChoice, outTemplate: String, source: OutputFormat?) -> OutputFormat {
        if case .fixed(let format) = choice { return format }
        let ext = (outTemplate as NSString).pathExtension
        if !ext.contains("{"), let format = OutputFormat(fileExtension: ext) { return format }
        if let source { return source }
        return .jpeg
    }
}
