import Foundation
import Synchronization

/// Turns a manifest record into a validated `ThumbnailRequest`, filling empty cells from the
/// command line's defaults (the row wins over the flag).
public struct RowParser: Sendable {
    /// Values used where a row leaves a column empty, as the text a cell would hold.
    public var defaults: [ManifestColumn: String] {
        didSet { defaultCells = Self.cells(defaults) }
    }
    /// `defaults` by `ManifestColumn.ordinal`: a row looks its columns up by index, not by
    /// hashing (hashing them was a tenth of a warm row's parsing).
    private var defaultCells: [String?]
    /// The folder relative `src` paths are resolved against (the manifest's folder).
    public var baseDirectory: String
    /// Encoder settings given to every row (run-wide flags, not columns).
    public var encoding = EncodingOptions()
    /// The query parameters dropped from a URL source's identity in the cache
    /// (`--ignore-query`); nil keeps every URL whole.
    public var queryFilter: QueryFilter?
    /// The last `out` template found valid: most manifests use one for every row, and
    /// checking it again cost as much as the rest of the row's parsing.
    private let lastValid = LastOne<String>()
    /// The last `src` resolved, and where it led: rows of one source (its sizes) are usually
    /// consecutive, and resolving it again was a tenth of a warm row's parsing. Keyed by the
    /// base folder too: copies of a parser share the box, and may have other folders.
    private let lastSource = LastOne<(text: String, base: String, location: SourceLocation)>()

    /// A box for one remembered value: a struct cannot hold a `Mutex` itself.
    private final class LastOne<Value: Sendable>: Sendable {
        private let value = Mutex<Value?>(nil)
        func withLock<T>(_ body: (inout Value?) -> T) -> T { value.withLock { body(&$0) } }
    }

    /// Makes a parser with the given defaults and base folder.
    public init(defaults: [ManifestColumn: String] = [:], baseDirectory: String) {
        self.defaults = defaults
        defaultCells = Self.cells(defaults)
        self.baseDirectory = baseDirectory
    }

    /// Fails a record with a cell that is not UTF-8 or is longer than its column holds, naming
    /// the column.
    static func checkCells(_ record: ManifestRecord) throws(RowError) {
        if let column = record.invalidColumns.first {
            // A URL's login is shown nowhere, this error included.
            let value = record.values[column].map { column == .src ? SourceLogin.split($0).shown : $0 }
            throw RowError(row: record.line, column: column.rawValue, value: value,
                           reason: "is not UTF-8 (the bytes that are not are shown as \\xNN); "
                               + "save the manifest as UTF-8")
        }
        var longest: (column: ManifestColumn, bytes: Int)?
        for (column, text) in record.values where text.utf8.count > column.maximumBytes {
            if longest.map({ column.ordinal < $0.column.ordinal }) ?? true { longest = (column, text.utf8.count) }
        }
        if let (column, bytes) = longest {
            throw RowError(row: record.line, column: column.rawValue,
                           reason: "holds \(bytes) bytes; a \(column.rawValue) cell holds at most \(column.maximumBytes)")
        }
    }

    /// `values` as an array indexed by `ManifestColumn.ordinal`.
    private static func cells(_ values: [ManifestColumn: String]) -> [String?] {
        var cells = [String?](repeating: nil, count: ManifestColumn.ordinalCount)
        for (column, value) in values { cells[column.ordinal] = value }
        return cells
    }

    /// Parses one record; the error names the row, the column and the value at fault.
    public func parse(_ record: ManifestRecord) -> Result<ThumbnailRequest, RowError> {
        do {
            return .success(try request(from: record))
        } catch {
            return .failure(error)
        }
    }

    private func request(from record: ManifestRecord) throws(RowError) -> ThumbnailRequest {
        let row = record.line
        try Self.checkCells(record)
        // The local functions below capture this, not `self`: `fail` is passed on as a
        // closure, and capturing `self` copied the whole parser for every row.
        let defaults = defaultCells
        let cells = Self.cells(record.values)
        // The size columns go together: a row that sets any of them ignores the flag's size.
        let rowSetsSize = cells[ManifestColumn.width.ordinal] != nil || cells[ManifestColumn.height.ordinal] != nil
            || cells[ManifestColumn.size.ordinal] != nil
        func value(_ column: ManifestColumn) -> String? {
            if let v = cells[column.ordinal] { return v }
            if rowSetsSize, column == .width || column == .height || column == .size { return nil }
            return defaults[column.ordinal]
        }
        func fail(_ column: ManifestColumn, _ reason: String) -> RowError {
            RowError(row: row, column: column.rawValue, value: value(column), reason: reason)
        }
        func choice<T: RawRepresentable & CaseIterable>(_ column: ManifestColumn, _: T.Type)
            throws(RowError) -> T? where T.RawValue == String
        {
            guard let text = value(column) else { return nil }
            guard let v = T(rawValue: text.trimmingWhitespace.lowercased()) else {
                let names = T.allCases.map(\.rawValue).joined(separator: ", ")
                throw fail(column, "is not one of \(names)")
            }
            return v
        }

        guard let cellText = value(.src)?.trimmingWhitespace, !cellText.isEmpty else {
            throw RowError(row: row, column: "src", reason: "is missing; every row needs a source")
        }
        // A URL's user info goes into the request's login, and nowhere else.
        let (srcText, login) = SourceLogin.split(cellText)
        let source: SourceLocation
        if let known = lastSource.withLock({ $0?.text == srcText && $0?.base == baseDirectory ? $0?.location : nil }) {
            source = known
        } else {
            source = try SourceResolver(baseDirectory: baseDirectory).resolve(srcText, row: row)
            lastSource.withLock { $0 = (srcText, baseDirectory, source) }
        }

        let sourceKey = try Self.sourceKey(of: source, cell: value(.sourceKey), filter: queryFilter, fail: fail)

        var spec = ThumbnailSpec()
        spec.box = try box(value(.size), value(.width), value(.height), fail: fail)
        spec.fit = try choice(.fit, Fit.self) ?? .inside
        spec.gravity = try choice(.gravity, Gravity.self) ?? .center
        spec.kernel = try choice(.kernel, Kernel.self) ?? .lanczos3
        if let text = value(.crop) {
            let parts = text.split(separator: ",").map {
                Double($0.trimmingWhitespace)
            }
            guard parts.count == 4, case let numbers = parts.compactMap({ $0 }), numbers.count == 4,
                  case let rect = CropRect(x: numbers[0], y: numbers[1], width: numbers[2],
                                           height: numbers[3]), rect.isValid else {
                throw fail(.crop, "must be x,y,w,h as fractions in [0,1] with x+w and y+h at most 1")
            }
            spec.crop = rect
        }
        if let text = value(.focus), text.trimmingWhitespace.lowercased() == "auto" {
            spec.focusFromFile = true
        } else if let text = value(.focus) {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace) }
            guard parts.count == 2, let x = parts[0], let y = parts[1], case let point = FocusPoint(x: x, y: y),
                  point.isValid else {
                throw fail(.focus, "must be x,y as fractions of the image in [0,1], such as 0.5,0.3, or auto")
            }
            spec.focus = point
        }
        if let text = value(.rotate)?.trimmingWhitespace, !text.isEmpty {
            guard let degrees = Int(text), [0, 90, 180, 270].contains(degrees) else {
                throw fail(.rotate, "must be 0, 90, 180 or 270 (degrees clockwise, after the EXIF orientation)")
            }
            spec.reorientation.degrees = degrees
        }
        if let text = value(.trim)?.trimmingWhitespace.lowercased(), !text.isEmpty, !["false", "no", "0"].contains(text) {
            let threshold = ["true", "yes"].contains(text) ? 10 : Double(text)
            guard let threshold, threshold > 0, threshold <= 255 else {
                throw fail(.trim, "must be a threshold from 1 to 255 (how far from the corner's colour a border may be), true (10) or false")
            }
            spec.trimThreshold = threshold
        }
        if let text = value(.colour)?.trimmingWhitespace.lowercased(), !text.isEmpty {
            guard let colour = ColourOutput(rawValue: text) else {
                throw fail(.colour, "must be srgb (convert, the default), keep (the source's profile) or p3 (Display P3)")
            }
            spec.colour = colour
        }
        if let text = value(.keep)?.trimmingWhitespace, !text.isEmpty {
            guard let keep = KeptMetadata.parse(text) else {
                throw fail(.keep, "must be none, or a list of icc, copyright and exif, such as icc,copyright")
            }
            spec.keep = keep
        }
        if let text = value(.sharpen)?.trimmingWhitespace {
            guard let sharpening = Sharpening.parse(text) else {
                throw fail(.sharpen, "must be auto (a mild sharpen after a large reduction), a sigma from 0.3 to 10, or none")
            }
            spec.sharpening = sharpening
        }
        if let text = value(.flip)?.trimmingWhitespace.lowercased(), !text.isEmpty, text != "none" {
            let letters = text.filter { $0 != "," && $0 != " " }
            guard !letters.isEmpty, letters.allSatisfy({ $0 == "h" || $0 == "v" }), Set(letters).count == letters.count else {
                throw fail(.flip, "must be h (left to right), v (top to bottom), h,v (both) or none")
            }
            spec.reorientation.mirrorsAcross = letters.contains("h")
            spec.reorientation.mirrorsDown = letters.contains("v")
        }
        if let text = value(.page)?.trimmingWhitespace, !text.isEmpty {
            // libvips counts pages from 0 and takes at most 100,000; a row counts from 1.
            guard let page = Int(text), (1...100_000).contains(page) else {
                throw fail(.page, "must be a page number from 1 (the first page or image) to 100000")
            }
            spec.page = page
        }
        func flag(_ column: ManifestColumn) throws(RowError) -> Bool {
            switch value(column)?.trimmingWhitespace.lowercased() {
            case nil, "false", "no", "0": return false
            case "true", "yes", "1": return true
            default: throw fail(column, "must be true or false")
            }
        }
        spec.upscale = try flag(.upscale)
        spec.animated = try flag(.animated)
        spec.encoding = encoding
        // A row of graphics among photos: its cell wins over the run's flags.
        if value(.lossless) != nil {
            let lossless = try flag(.lossless)
            spec.encoding.webpLossless = lossless
            spec.encoding.avifLossless = lossless
            spec.encoding.jxlLossless = lossless
            if lossless { spec.encoding.webpNearLossless = nil }
        }
        if let text = value(.jpegSubsample)?.trimmingWhitespace.lowercased() {
            guard text == "auto" || text == "444" else { throw fail(.jpegSubsample, "must be auto or 444") }
            spec.encoding.jpegNoSubsampling = text == "444"
        }
        spec.shrinkOnLoad = try choice(.shrinkOnLoad, ShrinkOnLoadMode.self) ?? .balanced
        if let text = value(.format)?.lowercased() {
            if text == "auto" {
                spec.format = .auto
            } else if let f = OutputFormat(rawValue: text == "jpg" ? "jpeg" : text) {
                spec.format = .fixed(f)
            } else {
                throw fail(.format, "is not one of auto, "
                           + OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))
            }
        }
        if case .fixed(let format) = spec.format, let refusal = spec.metadataRefusal(writing: format) {
            throw fail(refusal.refusesProfile && spec.colour.embedsProfile ? .colour : .keep,
                       "cannot be written as \(format.rawValue): \(refusal.message)")
        }
        if let text = value(.maxOutputBytes) {
            guard let bytes = ByteCount.parse(text), bytes >= 1, bytes < Int64(Int32.max) else {
                throw fail(.maxOutputBytes, "must be a size in bytes, such as 150000, 150K or 1.5M")
            }
            spec.maxOutputBytes = Int(bytes)
        }
        if let text = value(.quality) {
            guard let setting = QualitySetting.parse(text) else { throw fail(.quality, QualitySetting.expected) }
            spec.quality = setting.all
            spec.formatQuality = setting.byFormat
        }
        if let text = value(.background) {
            guard let color = RGBAColor(hex: text.trimmingWhitespace) else {
                throw fail(.background, "must be #rrggbb or #rrggbbaa")
            }
            spec.background = color
        }
        var maxAge = 0
        if let text = value(.maxAge) {
            guard let seconds = Int(text.trimmingWhitespace) else {
                throw fail(.maxAge, "must be a whole number of seconds")
            }
            maxAge = seconds
        }
        // A row with a `dir` (a walked tree's) mirrors its folder by default.
        var outTemplate = value(.out)
            ?? (value(.dir) == nil ? ThumbnailRequest.defaultOutTemplate : ThumbnailRequest.treeOutTemplate)
        if outTemplate.containsBytes("{dir}") {
            do {
                outTemplate = try OutputPathTemplate.filling(directory: value(.dir) ?? "", in: outTemplate)
            } catch {
                throw fail(.dir, error.reason)
            }
        }
        if !lastValid.withLock({ $0 == outTemplate }) {
            do {
                try OutputPathTemplate.validate(outTemplate)
            } catch {
                throw fail(.out, error.reason)
            }
            lastValid.withLock { $0 = outTemplate }
        }
        return ThumbnailRequest(
            row: row, id: value(.id) ?? String(row), sourceText: srcText, source: source,
            outTemplate: outTemplate, spec: spec,
            priority: try choice(.priority, Priority.self) ?? .normal, maxAge: maxAge, sourceKey: sourceKey,
            login: login)
    }

    /// A URL source's name in the cache: the `source_key` cell, else the URL less the
    /// parameters `filter` drops; nil when it is the URL itself, and for a local file (whose
    /// identity is its bytes: a `source_key` there changes nothing).
    private static func sourceKey(of source: SourceLocation, cell: String?, filter: QueryFilter?,
                                  fail: (ManifestColumn, String) -> RowError) throws(RowError) -> SourceKey? {
        guard case .url(let url) = source else { return nil }
        if let cell {
            let key = cell.trimmingWhitespace
            guard !key.isEmpty else { return nil }
            guard key.utf8.count <= 2048, !key.contains(where: { $0.isNewline }) else {
                throw fail(.sourceKey, "must be one line of at most 2048 bytes")
            }
            return SourceKey(identity: key, fromColumn: true)
        }
        guard let filter, let (identity, dropped) = filter.identity(of: url.absoluteString) else { return nil }
        return SourceKey(identity: identity, dropped: dropped, fromColumn: false)
    }

    private func box(_ size: String?, _ width: String?, _ height: String?,
                     fail: (ManifestColumn, String) -> RowError) throws(RowError) -> TargetBox {
        func side(_ column: ManifestColumn, _ text: String?) throws(RowError) -> Int? {
            guard let text else { return nil }
            let digits = text.trimmingWhitespace
            guard digits.allSatisfy(\.isASCIIDigit), let v = Int(digits), v > 0 else {
                throw fail(column, "must be a positive whole number of pixels")
            }
            return v
        }
        var box = TargetBox.unbounded
        if let size {
            guard let parsed = TargetBox(parsing: size.trimmingWhitespace) else {
                throw fail(.size, "must be WxH, W or xH in pixels, such as 256x256")
            }
            box = parsed
        }
        if let w = try side(.width, width) { box.width = w }
        if let h = try side(.height, height) { box.height = h }
        return box
    }
}
