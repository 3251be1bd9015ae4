import Foundation

/// A row's recipe (`ThumbnailSpec`) from its cells, and the memo that spares parsing a recipe
/// again: a manifest's rows cycle through a few (one per size, per format), the same for
/// every source.
extension RowParser {
    /// The columns a recipe is made of: two rows with the same text in each (after the
    /// defaults) have the same recipe.
    static let specColumns: [ManifestColumn] = [
        .size, .width, .height, .fit, .gravity, .kernel, .crop, .focus, .rotate, .trim, .colour, .keep,
        .sharpen, .flip, .page, .upscale, .animated, .lossless, .jpegSubsample, .shrinkOnLoad, .format,
        .maxOutputBytes, .quality, .background,
    ]

    /// The recipe of a row whose cells `value` gives, with the run's `encoding`; the error
    /// names the column at fault.
    static func spec(encoding: EncodingOptions, value: (ManifestColumn) -> String?,
                     fail: (ManifestColumn, String) -> RowError) throws(RowError) -> ThumbnailSpec {
        func choice<T: RawRepresentable & CaseIterable>(_ column: ManifestColumn, _ type: T.Type)
            throws(RowError) -> T? where T.RawValue == String
        {
            try RowParser.choice(column, type, value: value, fail: fail)
        }
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
        return spec
    }

    /// The case of `T` named by `column`'s cell (any case, spaces around ignored); nil for an
    /// empty cell; the error lists the names.
    static func choice<T: RawRepresentable & CaseIterable>(
        _ column: ManifestColumn, _: T.Type, value: (ManifestColumn) -> String?,
        fail: (ManifestColumn, String) -> RowError
    ) throws(RowError) -> T? where T.RawValue == String {
        guard let text = value(column) else { return nil }
        guard let v = T(rawValue: text.trimmingWhitespace.lowercased()) else {
            let names = T.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail(column, "is not one of \(names)")
        }
        return v
    }

    private static func box(_ size: String?, _ width: String?, _ height: String?,
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

/// What a row's recipe is parsed from: its recipe cells (`RowParser.specColumns`) and the run's
/// encoding, which copies of a parser sharing a memo may hold differently.
struct SpecCells: Equatable, Sendable {
    var cells: [String?]
    var encoding: EncodingOptions
}
