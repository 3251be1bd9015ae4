import Foundation
import Synchronization

/// Writes the `--index` file: for each source, its outputs grouped by format, with a ready
/// `srcset` per format (eleventy-img's metadata, in spirit), for static-site generators.
///
/// Results arrive in any order; each waits only until the rows read before it are in, like
/// the report's (`ReportStream`), and a source's entry is written once the next row names
/// another source: memory holds one source's outputs and the admission window, not the run.
/// Rows come source by source (a manifest file's all of them, `SourceOrder`); a source whose
/// rows standard input put further apart than its window gets an entry per stretch. The file is
/// written under a locked temporary name beside it and renamed into place by `finish`.
/// Layout (schema 1, `docs/index.schema.json`):
/// `{"schema":1,"sources":[ one entry per line ]}`.
public final class ImageIndex: Sendable {
    /// One output as the index lists it.
    struct Output: Encodable, Equatable {
        var width: Int, height: Int, bytes: Int
        /// Relative to `--out`, as the report's `out`.
        var path: String
        /// `path` percent-encoded, after the URL prefix: what `srcset` names.
        var url: String
    }

    /// One format's outputs of a source.
    struct Format: Encodable {
        var type: String
        var srcset: String
        var outputs: [Output]
    }

    /// One source's entry.
    struct Source: Encodable {
        var src: String
        var formats: [String: Format]
        /// A ready `<picture>` (`PictureMarkup`); nil when no format a browser shows is there.
        var html: String?
        /// What a page shows while the image loads: the placeholder of the source's smallest
        /// output that has one (`--placeholders`).
        var placeholder: PlaceholderFields?
    }

    /// One finished row's output, its format's name and its placeholder, as `add` keeps it.
    struct Listed {
        var format: String
        var output: Output
        var placeholder: PlaceholderFields?
    }

    /// The `sizes` the markup says when the run names none: the image as wide as the viewport.
    public static let defaultSizes = "100vw"


    private struct State {
        var file: TemporaryFile?
        var expected: [Int] = []
        var head = 0
        /// Finished rows not yet in their place: the `src` and, for a row with an output, it.
        var waiting: [Int: (src: String, output: Listed?)] = [:]
        var current: (src: String, outputs: [Listed])?
        var first = true
        var failed = false
    }

    private let destination: String
    private let urlPrefix: String
    private let sizes: String
    /// Whether srcsets are in x descriptors (`--density`).
    private let byDensity: Bool
    private let state: Mutex<State>

    /// Starts an index that `finish` puts at `destination` (its folder is created if missing);
    /// each `url` and `srcset` path gets `urlPrefix` in front (the URL `--out` is served at);
    /// `sizes` goes into each source's markup; with `densities` (`--density`), srcsets are in x
    /// descriptors, each output's width over the narrowest's.
    public init(destination: URL, urlPrefix: String = "", sizes: String = ImageIndex.defaultSizes,
                densities: [Double]? = nil) throws {
        let folder = destination.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let file = TemporaryFile(in: folder.path, for: destination.lastPathComponent,
                                       registry: .shared) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination.path])
        }
        self.destination = destination.path
        self.urlPrefix = urlPrefix
        self.sizes = sizes
        byDensity = densities != nil
        state = Mutex(State(file: file))
        state.withLock { Self.write("{\"schema\":1,\"sources\":[", to: &$0) }
    }

    /// Notes that the record on `line` was read, fixing its place.
    public func expect(line: Int) {
        state.withLock { $0.expected.append(line) }
    }

    /// Adds a finished row; rows without an output (failed, cancelled, planned) only keep
    /// their place.
    public func add(_ result: RowResult) {
        var output: Listed?
        if result.status == .written || result.status == .unchanged, let path = result.out,
           let format = result.format, let width = result.width, let height = result.height {
            output = Listed(format: format.rawValue,
                            output: Output(width: width, height: height, bytes: result.bytes ?? 0,
                                           path: path, url: urlPrefix + ContactSheet.encodedPath(path)),
                            placeholder: result.placeholder)
        }
        state.withLock { state in
            state.waiting[result.row] = (result.src, output)
            while state.head < state.expected.count,
                  let next = state.waiting.removeValue(forKey: state.expected[state.head]) {
                state.head += 1
                take(next, into: &state)
            }
            if state.head > 4096 {
                state.expected.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Writes what is left and puts the index in place.
    public func finish() throws {
        try state.withLock { state in
            for (_, next) in state.waiting.sorted(by: { $0.key < $1.key }) { take(next, into: &state) }
            state.waiting = [:]
            flush(&state)
            Self.write("\n]}\n", to: &state)
            let destination = self.destination
            guard !state.failed, let file = state.file,
                  file.place({ rename($0, destination) == 0 }) else {
                throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: destination])
            }
            state.file = nil
        }
    }

    private func take(_ row: (src: String, output: Listed?), into state: inout State) {
        if state.current?.src != row.src {
            flush(&state)
            state.current = (row.src, [])
        }
        if let output = row.output { state.current?.outputs.append(output) }
    }

    /// Writes the current source's entry, if it has any output.
    private func flush(_ state: inout State) {
        guard let current = state.current else { return }
        state.current = nil
        guard !current.outputs.isEmpty else { return }
        let entry = Self.entry(src: current.src, outputs: current.outputs, sizes: sizes, byDensity: byDensity)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(entry) else { state.failed = true; return }
        Self.write(state.first ? "\n" : ",\n", to: &state)
        state.first = false
        Self.write(String(decoding: json, as: UTF8.self), to: &state)
    }

    /// A source's entry: its outputs by format, narrowest first, and each format's `srcset`
    /// (one candidate per width: a browser drops a repeated width).
    /// With `byDensity`, a candidate's descriptor is its width over the narrowest output's (`2x`,
    /// `1.5x`), for images shown at a fixed CSS size.
    static func entry(src: String, outputs: [Listed], sizes: String = defaultSizes,
                      byDensity: Bool = false) -> Source {
        var formats: [String: Format] = [:]
        for (name, list) in Dictionary(grouping: outputs, by: \.format) {
            let sorted = list.map(\.output).sorted { ($0.width, $0.height, $0.path) < ($1.width, $1.height, $1.path) }
            var widths: Set<Int> = []
            let distinct = sorted.filter { widths.insert($0.width).inserted }
            let base = Double(distinct.first?.width ?? 1)
            let candidates = distinct.map { "\($0.url) " + (byDensity ? density(Double($0.width) / base) : "\($0.width)w") }
            formats[name] = Format(type: mimeType(name), srcset: candidates.joined(separator: ", "), outputs: sorted)
        }
        let placeholder = outputs.filter { $0.placeholder != nil }
            .min { ($0.output.width * $0.output.height, $0.output.path) < ($1.output.width * $1.output.height, $1.output.path) }?
            .placeholder
        let html = PictureMarkup.html(formats: formats, sizes: byDensity ? nil : sizes, placeholder: placeholder)
        return Source(src: src, formats: formats, html: html, placeholder: placeholder)
    }

    /// An x descriptor: `2x`, `1.5x`, `1.56x` (to two decimals, trailing zeros dropped).
    static func density(_ ratio: Double) -> String {
        var text = String(format: "%.2f", ratio)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text + "x"
    }

    /// The media type browsers know a format by (`<source type>`).
    static func mimeType(_ format: String) -> String {
        OutputFormat(rawValue: format) == .tiff ? "image/tiff" : "image/" + format
    }

    private static func write(_ text: String, to state: inout State) {
        guard let file = state.file else { return }
        let ok = Array(text.utf8).withUnsafeBytes { file.write($0) }
        if !ok { state.failed = true }
    }
}
