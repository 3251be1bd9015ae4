/// What the `quality` column (and `--quality`) says: a bare number for every format, a number
/// per format (`webp=75,avif=50,jpeg=80`: AVIF 50 and JPEG 80 look about the same), or both
/// (`80,avif=50`). A format named gets its own number; the others get the bare one, else
/// their encoder's default.
public struct QualitySetting: Sendable, Equatable, Hashable, Codable {
    /// The number for every format not named; nil for each one's default.
    public var all: Int?
    /// Numbers by format.
    public var byFormat: [OutputFormat: Int] = [:]

    /// A setting of `all` for every format.
    public init(all: Int? = nil, byFormat: [OutputFormat: Int] = [:]) {
        self.all = all
        self.byFormat = byFormat
    }

    /// The number for `format`: its own, else the bare one; nil for its encoder's default.
    public func value(for format: OutputFormat) -> Int? {
        byFormat[format] ?? all
    }

    /// The per-format numbers as key text, formats in a fixed order (`avif:50,jpeg:80`).
    var byFormatText: String {
        OutputFormat.allCases.compactMap { format in byFormat[format].map { "\(format.rawValue):\($0)" } }
            .joined(separator: ",")
    }
}
