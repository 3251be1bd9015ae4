import Foundation

/// Opening the source and decoding it once per group of rows that decode alike.
extension SourceRender {
    /// What decodes alike: the page, the loader's shrink (a vector's density) and whether every
    /// frame is loaded.
    private struct DecodeKey: Hashable {
        var page: Int
        var scale: Double
        var allFrames: Bool
    }

    /// Opens the file, lays out each of the `open` rows, and decodes once per group of rows
    /// whose page, shrink-on-load (and wish for every frame) agree, usually one group, so that
    /// no row's pixels depend on which other rows shared the decode. The file is opened once,
    /// and once more for each other page a row asks for (`openPages`): at most one group of a
    /// page (the one that loads at full size) reads the opened image itself; the others load
    /// again with their own settings, except a still lossy WebP's groups up to half size, each
    /// made in memory from one decode of its planes, and a JPEG's groups at two or more DCT
    /// scales, each made in memory from one read of its coefficients. Throws only what ends
    /// every row: a source that cannot be opened, a refused decode, or a timeout (a page the
    /// source lacks fails only the rows that ask for it).
    /// The rows come back in the order to render them: a group's rows together, so that a
    /// group's lazy pixels can be let go before the next group's are made.
    func prepare(_ path: String, rows: [Row], open: [Int], listener: Listener,
                 watch: StageWatch) throws(ImagingError) -> [(Int, Result<PreparedRow, ThumbnailFailure>)] {
        listener.stage(.open, nil)
        var prepared: [(Int, Result<PreparedRow, ThumbnailFailure>)] = []
        var pages = try openPages(path, rows: rows, open: open, failures: &prepared)
        watch.enter("decode")
        // `focus=auto` rows take the focal point the file carries, read once a page.
        let rows = try resolvingTrim(Self.resolvingFocus(rows, in: pages), in: pages)
        var size = stat()
        let bytes = stat(path, &size) == 0 ? Int64(size.st_size) : 0
        // The rows whose page opened go on (the others are failed), each with its page's header.
        var headers: [Int: ImageHeader] = [:]
        for index in open {
            headers[index] = pages[rows[index].spec.page]?.header
        }
        let opening = open.filter { headers[$0] != nil }
        func header(_ index: Int) -> ImageHeader { headers[index] ?? Self.noHeader }
        var plans: [Int: ThumbnailGeometry] = [:]
        for index in opening {
            // A drawing has no pixels to enlarge: it is drawn at the size its box asks for,
            // as `vips_thumbnail` draws one, `upscale` or not.
            var layout = rows[index].spec
            if ShrinkOnLoad.drawsVector(header(index).loader) { layout.upscale = true }
            let plan = ThumbnailGeometry(sourceWidth: header(index).orientedWidth, sourceHeight: header(index).orientedHeight,
                                         spec: layout)
            if let failure = outputSizeFailure(plan, src: rows[index].sourceText) {
                prepared.append((index, .failure(failure)))
            } else {
                plans[index] = plan
            }
        }
        // Each row's format and pass-through, worked out once: the grouping, the keys and the
        // prepared rows below all ask.
        var formats: [Int: OutputFormat] = [:], passes: Set<Int> = []
        for index in open where plans[index] != nil {
            let format = FormatResolver.resolve(rows[index].spec.format, outTemplate: rows[index].outTemplate,
                                                source: header(index).format)
            if let refusal = rows[index].spec.metadataRefusal(writing: format) {
                prepared.append((index, .failure(ThumbnailFailure(.invalidRow, "\(rows[index].sourceText): \(refusal.message)"))))
                plans[index] = nil
                continue
            }
            formats[index] = format
            if let plan = plans[index], PassThrough.applies(header(index), spec: rows[index].spec, format: format, plan: plan) {
                passes.insert(index)
            }
        }
        let accepted = open.filter { plans[$0] != nil }
        func scale(_ index: Int) -> Double { plans[index]?.requiredScale ?? 1 }
        func format(_ index: Int) -> OutputFormat { formats[index] ?? .jpeg }
        func allFrames(_ index: Int) -> Bool {
            rows[index].spec.animated && SourceDecoder.canAnimate(header(index)) && format(index).canAnimate
        }
        func passesThrough(_ index: Int) -> Bool { passes.contains(index) }
        // Rows that render alike (`SharedScale.Key`: a size in several formats) share their
        // scaled pixels; a decode goes into memory only when its rows read it in more than one
        // way, else it streams once into the shared scaled pixels.
        func key(_ index: Int, _ decoded: DecodedImage) -> SharedScale.Key? {
            guard let plan = plans[index], !passesThrough(index) else { return nil }
            return ThumbnailRenderer.scaleKey(decoded, spec: rows[index].spec, plan: plan, format: format(index))
        }
        let groups = Dictionary(grouping: accepted) {
            DecodeKey(page: rows[$0].spec.page,
                      scale: ShrinkOnLoad.loadedScale(loader: header($0).loader, requiredScale: scale($0),
                                                      mode: rows[$0].spec.shrinkOnLoad,
                                                      heifThumbnailScale: pages[rows[$0].spec.page]?.heifThumbnailScale),
                      allFrames: allFrames($0))
        }
        // The largest page's decodes are what the budget admits: pages decode one after another.
        var estimate: DecodeEstimate?
        for (page, opened) in pages {
            let decodes = groups.keys.filter { $0.page == page }.map { (scale: $0.scale, allFrames: $0.allFrames) }
            if JPEGCoefficients.areShared(loader: opened.header.loader, groups: decodes) {
                pages[page]?.jpegCoefficients = SharedDecode { JPEGCoefficients.read(path: path) }
            }
            let pageEstimate = DecodeEstimate.of(opened.header, groups: decodes)
            if pageEstimate.bytes >= estimate?.bytes ?? 0 { estimate = pageEstimate }
        }
        if let estimate { try listener.admit(estimate) }
        listener.stage(.decode, nil)
        // Every frame of an animation held in memory for sharing would cost frames × width ×
        // height × bands bytes (192 MB for 400 frames of 400×300); decoding it again per row
        // streams in constant memory, and GIF and WebP decode fast.
        let shares = groups.flatMap { key, group in key.allFrames ? group.map { [$0] } : [group] }
        for group in shares.sorted(by: { $0[0] < $1[0] }) {
            guard let opened = pages[rows[group[0]].spec.page] else { continue }
            let facts = Self.facts(of: opened.header, bytes: bytes)
            // The row that needs the most pixels decides, by its own mode: every row of the
            // group loads at the same scale, so that row's choice is each row's choice.
            let largest = group.max { scale($0) < scale($1) } ?? group[0]
            let src = rows[group[0]].sourceText
            var result = decode(opened, scale: scale(largest), shrinkOnLoad: rows[largest].spec.shrinkOnLoad,
                                allFrames: allFrames(group[0]), src: src, watch: watch,
                                holdsInMemory: { decoded in
                                    // A row without a key (a pass-through) reads on its own.
                                    let keys = group.map { key($0, decoded) }
                                    let ways = Set(keys.compactMap { $0 }).count + keys.filter { $0 == nil }.count
                                    guard ways == 1, group.count == 1, keys[0] != nil, let plan = plans[group[0]]
                                    else { return ways > 1 }
                                    return Self.holdsAlone(decoded, plan: plan, kernel: rows[group[0]].spec.kernel)
                                })
            if case .success(let decoded) = result, !decoded.isInMemory,
               let first = group.first(where: passesThrough), let path = decoded.path,
               let error = decoder.decodeError(path: path, page: opened.header.page, watch: watch) {
                // The bytes go out as they are, so they must decode cleanly: lazy pixels are
                // read through here, where a broken source is a decode failure (pixels in
                // memory were read whole already).
                result = .failure(.imaging(error, src: rows[first].sourceText, stage: .decodeFailed))
            }
            // A decode killed by the deadline failed because of it: every row of the stage
            // reports the timeout, not the libvips error the kill caused.
            if case .failure = result, watch.isPastDeadline {
                throw .timedOut(operation: "decode", seconds: decoder.limits.seconds)
            }
            var shared: [SharedScale.Key: SharedScale] = [:]
            if case .success(let decoded) = result {
                listener.loaded(group, facts)
                let keys = group.compactMap { key($0, decoded) }
                for (key, count) in Dictionary(keys.map { ($0, 1) }, uniquingKeysWith: +) where count > 1 {
                    shared[key] = SharedScale()
                }
            }
            // Rows that would write the same bytes (the widths a small source cannot reach, a
            // row given twice) take the first one's output instead of making it again.
            var firsts: [SameOutput: Int] = [:]
            for index in group {
                guard let plan = plans[index] else { continue }
                let spec = rows[index].spec
                let same = SameOutput(page: spec.page, geometry: plan, format: format(index), gravity: spec.gravity,
                                      focus: spec.focus,
                                      reorientation: spec.reorientation, sharpening: spec.sharpening,
                                      colour: spec.colour, keep: spec.keep,
                                      kernel: spec.kernel,
                                      background: spec.background, quality: spec.quality(for: format(index)), encoding: spec.encoding,
                                      maxOutputBytes: spec.maxOutputBytes, passesThrough: passesThrough(index))
                let first = firsts[same]
                if first == nil { firsts[same] = index }
                prepared.append((index, result.map {
                    PreparedRow(decoded: $0, spec: spec, geometry: plan, format: format(index),
                                passesThrough: passesThrough(index),
                                sharedScale: key(index, $0).flatMap { shared[$0] }, sameAs: first)
                }))
            }
        }
        return prepared
    }

    /// What `header` gives a row whose page did not open; never read, as only rows whose page
    /// opened are asked about.
    private static let noHeader = ImageHeader(loader: "none", orientedWidth: 1, orientedHeight: 1, orientation: 1)

    /// Everything that decides a row's bytes once its decode is chosen: rows of one decode
    /// with equal values write the same bytes.
    private struct SameOutput: Hashable {
        var page: Int
        var geometry: ThumbnailGeometry
        var format: OutputFormat
        var gravity: Gravity
        var focus: FocusPoint?
        var reorientation: Reorientation
        var sharpening: Sharpening?
        var colour: ColourOutput
        var keep: KeptMetadata
        var kernel: Kernel
        var background: RGBAColor
        var quality: Int?
        var encoding: EncodingOptions
        var maxOutputBytes: Int?
        var passesThrough: Bool
    }

    /// `rows` with the focal point their page carries (`FocusFinder`) given to those whose
    /// `focus` is `auto`; a page without one leaves them at their gravity.
    static func resolvingFocus(_ rows: [Row], in pages: [Int: SourceDecoder.OpenedSource]) -> [Row] {
        guard rows.contains(where: { $0.spec.focusFromFile }) else { return rows }
        var found: [Int: FocusPoint?] = [:]
        for (page, opened) in pages where rows.contains(where: { $0.spec.focusFromFile && $0.spec.page == page }) {
            let image = opened.image
            found.updateValue(FocusFinder.focus(xmp: image.xmpPacket, subjectArea: image.exifText("exif-ifd2-SubjectArea"),
                                                storedWidth: image.width, storedHeight: image.pageHeight,
                                                orientation: opened.header.orientation), forKey: page)
        }
        return rows.map { row in
            guard row.spec.focusFromFile, let focus = found[row.spec.page] else { return row }
            var row = row
            row.spec.focus = focus
            return row
        }
    }

    /// `rows` with each `trim` row's borders cut: its `crop` becomes the box of its upright page
    /// that differs from the top-left pixel by more than its threshold (within its own `crop`, if
    /// it has one). Finding the box decodes the page whole once more, for the trimmed rows only.
    func resolvingTrim(_ rows: [Row], in pages: [Int: SourceDecoder.OpenedSource]) throws(ImagingError) -> [Row] {
        var boxes: [Int: [Double: CropRect]] = [:]
        for (page, opened) in pages {
            let thresholds = Set(rows.filter { $0.spec.page == page }.compactMap(\.spec.trimThreshold))
            guard !thresholds.isEmpty else { continue }
            boxes[page] = try trimBoxes(thresholds, in: opened)
        }
        guard !boxes.isEmpty else { return rows }
        return rows.map { row in
            guard let threshold = row.spec.trimThreshold, let box = boxes[row.spec.page]?[threshold] else { return row }
            var row = row
            row.spec.crop = row.spec.crop.map { Self.intersection($0, box) ?? $0 } ?? box
            return row
        }
    }

    /// The box each of `thresholds` trims `opened`'s page to, as fractions of it; a threshold
    /// that trims nothing has none.
    private func trimBoxes(_ thresholds: Set<Double>, in opened: SourceDecoder.OpenedSource)
        throws(ImagingError) -> [Double: CropRect] {
        let upright = try VipsImageRef.load(opened.loader, path: opened.path, access: .random,
                                            strictness: decoder.limits.strictness, page: opened.header.page).autorotated()
        let width = Double(upright.width), height = Double(opened.header.orientedHeight)
        let frame = upright.height > opened.header.orientedHeight
            ? try upright.extractArea(x: 0, y: 0, width: upright.width, height: opened.header.orientedHeight) : upright
        var boxes: [Double: CropRect] = [:]
        for threshold in thresholds {
            if let box = try frame.trimBox(threshold: threshold) {
                boxes[threshold] = CropRect(x: Double(box.x) / width, y: Double(box.y) / height,
                                            width: Double(box.width) / width, height: Double(box.height) / height)
            }
        }
        return boxes
    }

    /// Where two crop rectangles overlap; nil when they do not.
    static func intersection(_ a: CropRect, _ b: CropRect) -> CropRect? {
        let x = max(a.x, b.x), y = max(a.y, b.y)
        let right = min(a.x + a.width, b.x + b.width), bottom = min(a.y + a.height, b.y + b.height)
        guard right > x, bottom > y else { return nil }
        return CropRect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// The failure of a row whose output would be wider or taller than `--max-output-size`.
    private func outputSizeFailure(_ plan: ThumbnailGeometry, src: String) -> ThumbnailFailure? {
        let limit = decoder.limits.maxOutputDimension
        guard plan.canvasWidth > limit || plan.canvasHeight > limit else { return nil }
        return ThumbnailFailure(.tooLarge, "\(src): the output would be \(plan.canvasWidth)×\(plan.canvasHeight), "
                                + "over the limit of \(limit) pixels a side (--max-output-size)")
    }
}
