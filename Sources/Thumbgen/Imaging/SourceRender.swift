import Foundation

/// The imaging of one source and all its rows, as one plain function from a file and its rows
/// to each row's encoded output or failure. The parent calls it in process
/// (`--isolation none`) and a worker process calls it for its unit; it knows nothing of
/// operations, jobs, plans or the cache.
///
///     open (sniff, header) ─► rows grouped by decode ─► memory admitted ─► each group decoded once
///       ─► each row: [scaled pixels, shared by rows that scale alike] ─► alpha, canvas ─► encode
///
/// Rows share a decode only when their shrink-on-load agrees (the groups of a still lossy
/// WebP up to half size all share one decode into its planes, `WebPPlanes`, each group its own
/// average of them; a JPEG's groups at two or more DCT scales share one read of its
/// coefficients, `JPEGCoefficients`, each group libjpeg's own pixels at its scale), and scaled pixels only when their crop, size, kernel and colour agree
/// (`SharedScale`): a row's bytes depend on the source and its own recipe alone, never on
/// which other rows share its source.
///
/// Every row handed in ends with exactly one `output` or `failure`, whatever happens, unless
/// the listener says it no longer `wants` it. Rows are rendered one after another on the
/// calling thread; a stage past its deadline is failed from the watch's thread (`StageWatch`).
struct SourceRender: Sendable {
    /// One row, as far as its pixels are concerned.
    struct Row: Sendable {
        /// What the row's output is.
        var spec: ThumbnailSpec
        /// The `out` template, whose extension decides an `auto` format.
        var outTemplate: String
        /// The row's `src` cell, which its messages name.
        var sourceText: String
    }

    /// One row's encoded output.
    struct Output: Sendable {
        /// The encoded bytes.
        var data: Data
        /// The output's size (one frame's height for an animation).
        var width: Int
        var height: Int
        /// The format the bytes are in.
        var format: OutputFormat
        /// Milliseconds from the start of the source's decode to the start of this row's render.
        var decodeMilliseconds: Double
        /// Milliseconds of the row's render and encode (0 for an output another row made).
        var renderMilliseconds: Double
        /// The placeholder made from this output's pixels: the source's smallest rendered
        /// output has one (`RowQueue.placeholderRow`), the others none.
        var placeholder: Placeholder?
        /// Whether this output is the one its source's placeholder is made from, and the render
        /// made none (`makesPlaceholders` off): its cache record says so, and a later run that
        /// wants the placeholder renders it again.
        var owesPlaceholder = false
        /// The part of the source it shows, when not all of it.
        var cropBox: CropBox?
    }

    /// What the source turned out to be.
    struct Facts: Sendable {
        /// Bytes of the file.
        var bytes: Int64
        /// One frame's size, upright.
        var width: Int
        var height: Int
        /// The loader's format name: `jpeg`, `png`, `webp`, ...
        var format: String
        /// Frames in the file.
        var frames: Int
    }

    /// What the caller hears, as it happens. Rows are named by their place in `rows`.
    struct Listener: Sendable {
        /// Whether the row still wants its output (false once it ended elsewhere).
        var wants: @Sendable (Int) -> Bool = { _ in true }
        /// The stage the work reached, for the row (nil: every row's, opening and decoding).
        var stage: @Sendable (RenderStage, Int?) -> Void = { _, _ in }
        /// Asked for the decode's memory once the header is read; throws to refuse it.
        var admit: @Sendable (DecodeEstimate) throws(ImagingError) -> Void = { _ in }
        /// The source decoded for the rows (those of one decode, together).
        var loaded: @Sendable ([Int], Facts) -> Void = { _, _ in }
        /// The row's output.
        var output: @Sendable (Int, Output) -> Void
        /// Why the row failed.
        var failure: @Sendable (Int, ThumbnailFailure) -> Void
    }

    /// How sources are opened and the limits they are held to.
    var decoder: SourceDecoder
    /// The run's stop button.
    var cancellation: Cancellation?
    /// Whether the source's placeholder is made (`PipelineConfiguration.makesPlaceholders`):
    /// off, its row is encoded straight from the lazy pixels, as every other row is.
    var makesPlaceholders = true

    /// Renders every row of `rows` from the file at `path`, telling `listener` as each ends.
    func run(path: String, rows: [Row], listener: Listener) {
        let ledger = RowLedger(rows: rows, listener: listener)
        let open = rows.indices.filter { listener.wants($0) }
        guard !open.isEmpty else { return }
        if cancellation?.isCancelled == true { return ledger.cancel(open) }
        let started = ContinuousClock.now
        let failEvery: @Sendable (ImagingError) -> Void = { error in
            for index in open { ledger.fail(index, .imaging(error, src: rows[index].sourceText, stage: .decodeFailed)) }
        }
        let queue: RowQueue
        // Opening (the sniff and the header) and decoding are one stage under `--timeout`;
        // one that ignores the deadline still ends its rows on time (StageWatch).
        do {
            queue = try StageWatch.run("open", seconds: decoder.limits.seconds, cancellation: cancellation,
                                       onOverrun: failEvery) { watch throws(ImagingError) in
                RowQueue(try prepare(path, rows: rows, open: open, listener: listener, watch: watch))
            }
        } catch {
            failEvery(error)
            return VipsRuntime.releaseThreadResources()
        }
        // libvips keeps each thread's buffers of the images it evaluated until told: let them
        // go after the decode and after each row, or a unit's peak memory grows by their sum.
        VipsRuntime.releaseThreadResources()
        drain(queue, rows: rows, decodeStarted: started, ledger: ledger, listener: listener)
    }

    /// Makes the rows `queue` hands out until none is left. When a row's stage overruns and
    /// leaves this thread in C code that ignores the deadline (libaom inside an AVIF encode),
    /// another thread takes over the rest, so that the source's other rows still end.
    private func drain(_ queue: RowQueue, rows: [Row], decodeStarted: ContinuousClock.Instant,
                       ledger: RowLedger, listener: Listener) {
        let takeOver: @Sendable () -> Void = {
            Thread.detachNewThread {
                drain(queue, rows: rows, decodeStarted: decodeStarted, ledger: ledger, listener: listener)
                VipsRuntime.releaseThreadResources()
            }
        }
        while let (index, entry) = queue.next() {
            guard ledger.isOpen(index), listener.wants(index) else { continue }
            switch entry {
            case .failure(let failure):
                ledger.fail(index, failure)
            case .success(let row):
                if cancellation?.isCancelled == true { ledger.cancel([index]); continue }
                if let first = row.sameAs, var output = queue.output(of: first) {
                    output.renderMilliseconds = 0
                    ledger.finish(index, output)
                    continue
                }
                if let output = render(row, index: index, source: rows[index], decodeStarted: decodeStarted,
                                       isPlaceholderRow: index == queue.placeholderRow,
                                       ledger: ledger, listener: listener, onOverrun: takeOver) {
                    queue.keep(output, of: index)
                }
            }
        }
    }

    /// One row's render and encode, under its own deadline; its output, or nil when it failed.
    /// `takeOver` is called when the stage overruns (`drain`).
    private func render(_ row: PreparedRow, index: Int, source: Row, decodeStarted: ContinuousClock.Instant,
                        isPlaceholderRow: Bool, ledger: RowLedger, listener: Listener,
                        onOverrun takeOver: @escaping @Sendable () -> Void) -> Output? {
        defer { VipsRuntime.releaseThreadResources() }
        let start = ContinuousClock.now
        let src = source.sourceText
        do {
            // Everything from here to the encoded bytes is one stage under `--timeout`; a stage
            // that ignores the deadline still ends its row on time (StageWatch).
            let made = try StageWatch.run(
                "render", seconds: decoder.limits.seconds, cancellation: cancellation,
                onOverrun: { error in
                    ledger.fail(index, .imaging(error, src: src, stage: .encodeFailed))
                    takeOver()
                }
            ) { watch throws(ImagingError) -> Made in
                try renderAndEncode(row, spec: row.spec, index: index,
                                    makesPlaceholder: isPlaceholderRow && makesPlaceholders,
                                    listener: listener, watch: watch)
            }
            let output = Output(data: made.data, width: made.width, height: made.height, format: row.format,
                                decodeMilliseconds: Self.milliseconds(from: decodeStarted, to: start),
                                renderMilliseconds: Self.milliseconds(from: start, to: .now),
                                placeholder: made.placeholder, owesPlaceholder: isPlaceholderRow && !makesPlaceholders,
                                cropBox: made.cropBox)
            ledger.finish(index, output)
            return output
        } catch {
            ledger.fail(index, failure(after: error, decoded: row.decoded, src: src) { error in
                ledger.fail(index, .imaging(error, src: src, stage: .decodeFailed))
                takeOver()
            })
            return nil
        }
    }

    /// What one row's render made.
    private struct Made {
        var data: Data
        var width: Int, height: Int
        var placeholder: Placeholder?
        var cropBox: CropBox?
    }

    /// The output's bytes and size: the source's own bytes when it passes through, else a
    /// render and an encode. With `makesPlaceholder`, the rendered pixels are made into memory
    /// first, the placeholder computed from them and the encode read from them: the same bytes
    /// as a streamed encode, the pixels made once.
    private func renderAndEncode(_ row: PreparedRow, spec: ThumbnailSpec, index: Int, makesPlaceholder: Bool,
                                 listener: Listener, watch: StageWatch) throws(ImagingError) -> Made {
        let decoded = row.decoded
        if row.passesThrough, let path = decoded.path, let data = PassThrough.bytes(of: path, format: row.format) {
            return Made(data: data, width: decoded.header.orientedWidth, height: decoded.header.orientedHeight)
        }
        listener.stage(.render, index)
        var image = try ThumbnailRenderer().render(decoded, spec: spec, plan: row.geometry, format: row.format,
                                                   shared: row.sharedScale, watch: watch)
        let smartOffset = spec.focus == nil && spec.gravity.smartCropMeasure != nil && decoded.frames == 1
            ? image.windowOrigin : nil
        let cropBox = row.geometry.cropBox(sourceWidth: decoded.header.orientedWidth,
                                           sourceHeight: decoded.header.orientedHeight, spec: spec,
                                           smartOffset: smartOffset)
        var placeholder: Placeholder?
        if makesPlaceholder {
            let own = try image.copied()
            watch.enter("render", evaluating: own)
            image = try own.copiedToMemory()
            watch.enter("render")
            // A placeholder is an extra: one that cannot be made leaves the row's output alone.
            placeholder = try? PlaceholderMaker.make(from: image, frameHeight: image.pageHeight)
        }
        listener.stage(.encode, index)
        let metadata = OutputMetadata.of(spec, target: ThumbnailRenderer.colourTarget(decoded, spec: spec, format: row.format),
                                         source: decoded.image, greyOutput: image.bands <= 2)
        let data = try ImageEncoder().encode(image, as: row.format, quality: spec.quality(for: row.format), options: spec.encoding,
                                             maxBytes: spec.maxOutputBytes,
                                             sourcePixels: decoded.image.width * decoded.image.height,
                                             metadata: metadata, watch: watch)
        return Made(data: data, width: image.width, height: image.pageHeight, placeholder: placeholder,
                    cropBox: cropBox)
    }

    /// Names what went wrong when rendering failed: a broken source is a decode failure,
    /// anything else an encode failure. Pixels in memory were read whole by the decode, so a
    /// failure then is the encode's; lazy pixels come with the decode's `faultCheck`.
    /// `onOverrun` ends the row when the check itself ignores its deadline.
    private func failure(after error: ImagingError, decoded: DecodedImage, src: String,
                         onOverrun: @escaping @Sendable (ImagingError) -> Void) -> ThumbnailFailure {
        if cancellation?.isCancelled == true { return .cancelled(src) }
        if case .timedOut = error { return .imaging(error, src: src, stage: .encodeFailed) }
        guard let faultCheck = decoded.faultCheck else { return .imaging(error, src: src, stage: .encodeFailed) }
        // The check gets a deadline of its own: the render's may be spent.
        let sourceError = try? StageWatch.run("decode", seconds: decoder.limits.seconds, cancellation: cancellation,
                                              onOverrun: onOverrun) { watch throws(ImagingError) -> ImagingError? in
            faultCheck(watch)
        }
        if let sourceError {
            return .imaging(sourceError, src: src, stage: .decodeFailed)
        }
        return .imaging(error, src: src, stage: .encodeFailed)
    }

    /// The milliseconds between two instants.
    static func milliseconds(from start: ContinuousClock.Instant, to end: ContinuousClock.Instant) -> Double {
        let elapsed = (end - start).components
        return Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15
    }
}

/// What one row renders from: the decoded source (perhaps shared), its layout and output
/// format (worked out once), and whether the source's own bytes are the output.
struct PreparedRow: Sendable {
    /// The decoded source, perhaps shared with other rows.
    var decoded: DecodedImage
    /// The row's spec, its `focus=auto` resolved (`resolvingFocus`).
    var spec: ThumbnailSpec
    /// Where the row's output comes from in the source, and its size.
    var geometry: ThumbnailGeometry
    /// The output format, `auto` resolved.
    var format: OutputFormat
    /// Whether the source passes through (`PassThrough`): checked to decode cleanly already.
    var passesThrough: Bool
    /// The scaled pixels this row shares with others of its decode, if any.
    var sharedScale: SharedScale?
    /// An earlier row of the same decode whose output is this row's too, byte for byte.
    var sameAs: Int?
}
