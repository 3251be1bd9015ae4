/// Where the imaging of a source is (`SourceRender`): what a worker's watchdog times, and what a
/// crash message names.
enum RenderStage: String, Codable, Sendable, CaseIterable {
    /// Sniffing the format and reading the header.
    case open
    /// Decoding pixels (shrink-on-load, orientation).
    case decode
    /// Cropping and resampling one row's output.
    case render
    /// Encoding one row's output.
    case encode

    /// The stage as it reads after "while": "while decoding".
    var gerund: String {
        switch self {
        case .open: return "opening"
        case .decode: return "decoding"
        case .render: return "rendering"
        case .encode: return "encoding"
        }
    }
}
