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

    /// Why `text` is not a quality setting; nil when it is one (then `parse` gives it).
    static let expected = "must be a whole number from 1 to 100, or FORMAT=N pairs such as webp=75,avif=50,jpeg=80"

    /// The setting `text` writes, or nil when it is not one: items separated by commas, each a
    /// number from 1 to 100 or `FORMAT=N` (`jpg` for `jpeg`), at most one bare number and one
    /// per format.
    static func parse(_ text: String) -> QualitySetting? {
        var setting = QualitySetting()
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        for item in items {
            let parts = item.split(separator: "=", omittingEmptySubsequences: false)
                .map { String($0).trimmingWhitespace }
            guard let number = Int(parts[parts.count - 1]), (1...100).contains(number) else { return nil }
            switch parts.count {
            case 1:
                guard setting.all == nil else { return nil }
                setting.all = number
            case 2:
                let name = parts[0].lowercased()
                guard let format = OutputFormat(rawValue: name == "jpg" ? "jpeg" : name),
                      setting.byFormat[format] == nil else { return nil }
                setting.byFormat[format] = number
            default:
                return nil
            }
        }
        return setting
    }

    /// The per-format numbers as key text, formats in a fixed order (`avif:50,jpeg:80`).
    var byFormatText: String {
        OutputFormat.allCases.compactMap { format in byFormat[format].map { "\(format.rawValue):\($0)" } }
            .joined(separator: ",")
    }
}
