import Foundation

/// The bodies of the frames the parent and its workers exchange (`WorkerFrame`), and the
/// protocol's version.
enum WorkerProtocol {
    /// Bumped whenever a frame or a message changes; a worker that answers `setup` with another
    /// version is stopped, and its rows fail.
    static let version = 7

    /// What a worker is told of the row's source instead of its `src` cell, which may be a
    /// URL: a worker never sees one. The parent puts the cell back into messages.
    static let sourcePlaceholder = "\u{FFFC}src"

    /// `setup`: what every unit of the run shares.
    struct Setup: Codable {
        var version: Int
        /// Loaders enabled besides the known formats (`--enable-loader`).
        var extraLoaders: [String]
        /// libvips threads per image.
        var threadsPerImage: Int
        var limits: ImagingLimits
        /// Decodes estimated at fewer bytes go ahead without asking the parent
        /// (`MemoryBudget.askAbove`).
        var askAbove: Int64
        /// Whether a unit makes its source's placeholder (`SourceRender.makesPlaceholders`).
        var makesPlaceholders: Bool
    }

    /// `ready`: the worker's answer to `setup`.
    struct Ready: Codable {
        var version: Int
        var pid: Int32
    }

    /// `unit`: one source file, already on local disk, and the rows that share its decode.
    struct Unit: Codable {
        /// The file to decode: a local source, or the parent's download of a remote one.
        var path: String
        var rows: [UnitRow]

        /// The unit with every row's recipe filled in, row by row: a row that names its recipe
        /// by slot alone takes the one `known` holds there, and a row that carries one puts it
        /// in its slot (a worker's table, kept across its units, as `RecipeSlots` fills it). Nil
        /// when a row names a slot `known` has not filled.
        func resolved(with known: inout [Int: ThumbnailSpec]) -> Unit? {
            var unit = self
            for index in unit.rows.indices {
                if let spec = unit.rows[index].spec {
                    known[unit.rows[index].recipe] = spec
                } else if let spec = known[unit.rows[index].recipe] {
                    unit.rows[index].spec = spec
                } else {
                    return nil
                }
            }
            return unit
        }
    }

    /// One row of a unit: what its output is, never where it goes.
    struct UnitRow: Codable {
        /// The row's place in the unit; results name it.
        var index: Int
        /// The `out` template, which decides an `auto` format by its extension.
        var outTemplate: String
        /// The recipe's slot in the worker (`RecipeSlots`): a worker is sent a recipe once,
        /// and while it holds it, its slot alone. A ten-size manifest's units carried the
        /// same ten recipes again and again, and writing and reading them as JSON was a twentieth
        /// of a run's cycles.
        var recipe: Int
        /// The recipe, the first time this worker is sent it; nil after.
        var spec: ThumbnailSpec?
    }

    /// `stage`: the unit reached `stage`, for row `row` (nil: the whole unit's). Sent as its
    /// fields (`WireMessage`).
    struct Stage {
        var stage: WorkerStage
        var row: Int?
    }

    /// `estimate`: the decode's memory, from the header; from `askAbove` up the parent admits
    /// or refuses it, and the worker waits for its `admit`.
    typealias Estimate = DecodeEstimate

    /// `admit`: go ahead, or fail the unit's rows with `refusal` (`too_large`).
    struct Admit: Codable {
        var refusal: String?
    }

    /// `loaded`: what the source is, for the rows of one decode.
    struct Loaded: Codable {
        var rows: [Int]
        var source: RowResult.SourceInfo
    }

    /// `output`: one row's output, whose encoded bytes are the frame's payload. Sent as its
    /// fields (`WireMessage`).
    struct Output {
        var row: Int
        var width: Int
        var height: Int
        var format: OutputFormat
        /// Milliseconds of decode (the row's share of the unit's) and of render and encode.
        var decodeMs: Double?
        var renderMs: Double?
        /// The placeholder made from the output (`Placeholder.stored`), if it made one.
        var placeholder: String?
        /// True when the output is the one its source's placeholder is made from and the unit
        /// made none (`SourceRender.Output.owesPlaceholder`); absent otherwise.
        var owesPlaceholder: Bool?
        /// The part of the source the output shows, when not all of it.
        var cropBox: CropBox?
    }

    /// `failure`: why one row failed, with the placeholder for its source.
    struct Failure: Codable {
        var row: Int
        var code: ErrorCode
        var message: String
        /// What the search for `max_output_bytes` found, for an output that cannot fit: the
        /// parent keeps it in the cache as the row's verdict.
        var overBudget: OutputOverBudget?
    }

    /// `done`: the unit is over.
    struct Done: Codable {}
}

/// Where a worker is in a unit: what the watchdog times, and what a crash message names.
typealias WorkerStage = RenderStage
