extension QualitySetting {
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
}
