import Foundation

/// How a `Pipeline` runs: where outputs go, and how wide each stage's queue is.
public struct PipelineConfiguration: Sendable {
    /// The folder every output is written under (`--out`); nil renders into the cache only
    /// (`thumbgen warm`).
    public var outputDirectory: URL?
    /// The disk cache, if any: sources and outputs are looked up there before any work and
    /// stored there after it.
    public var cache: ThumbnailCache?
    /// Use only what the cache holds: a row whose source would have to be fetched fails with
    /// `not_cached`.
    public var offline = false
    /// The placeholder kinds results carry (`--placeholders`; the CLI asks for none unless a
    /// report or an index is written).
    public var placeholders: Set<PlaceholderKind> = PlaceholderKind.defaults
    /// Whether renders make their source's placeholder, which the cache keeps (the CLI: with
    /// `--report` or `--index`, or `--placeholders` naming kinds). Off, a render skips it and
    /// the record of the output it would be made from says it owes one; a run with it on
    /// renders that output again, for the very placeholder a render would have made (the
    /// output's encoded bytes are not the pixels it is made from).
    public var makesPlaceholders = true
    /// `--drop-larger`: a WebP, AVIF or JPEG XL output no smaller than its source's JPEG (else
    /// PNG) of the same width is not written (`SourceWeights`).
    public var dropLarger = false
    /// `--budget`: the bytes a source's outputs may come to together; a row whose output would
    /// take them past it fails `over_budget` (`SourceWeights`).
    public var sourceBudget: Int?
    /// Images processed at once (decode, render, encode); defaults to the number of cores.
    public var cpuConcurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Files written at once.
    public var writeConcurrency: Int = 4
    /// libvips worker threads per image; one, because parallelism across images beats many
    /// threads on one image when there are many images.
    public var threadsPerImage: Int = 1
    /// Rows admitted but not finished, at most; the reader waits beyond it, which bounds memory.
    /// Counted in rows, it must still hold enough sources to keep every worker fed when each
    /// source has many rows (ten widths for a `srcset`): 8 × cores left workers waiting for
    /// units 30% of the time; 64 × cores does not (docs/performance.md, "Keeping the workers fed").
    public var maxPendingRows: Int
    /// How URL sources are fetched.
    public var fetch = FetchPolicy()
    /// What one image may cost: pixels, frames, output size, bytes, time, damage.
    public var limits = ImagingLimits()
    /// Sees each row start and its source load, from any thread (`--events`); results go to
    /// the pipeline's `onResult` (or `onResults`).
    public var onEvent: (@Sendable (PipelineEvent) -> Void)?
    /// Decode, render and encode in worker processes (`WorkerIsolation`); nil (the library's
    /// default) does them in this process.
    public var isolation: WorkerIsolation?
    /// libvips loaders enabled besides the known image formats (`--enable-loader`).
    public var extraLoaders: [String] = []
    /// Hears of every folder the run creates under `outputDirectory` (the record of placed
    /// files, so that `--prune` removes only folders thumbgen made).
    public var madeFolders: MadeFolders?
    /// Whether the run is over part of the rows (a watch's batch): the warm journal of
    /// `--out`, which a run replaces with what it proved, is left as it was.
    public var partial = false
    /// How local sources are hashed before they are decoded; nil: the cache's `FileIndex`.
    var sourceHashing: (any SourceHashing)?
    /// How sources are rendered in this process; nil: `SourceRender`. Not used with workers.
    var rendering: (any SourceRendering)?
    /// How URL sources are got; nil: an `HTTPFetcher` with `fetch`.
    var fetching: (any SourceFetching)?
    /// Extra rows admitted once the manifest names a URL, so that downloads run ahead of the
    /// CPU work: eight times the concurrent transfers (downloaded files wait on disk).
    public var downloadLookahead: Int { 8 * fetch.concurrentTransfers }

    /// A configuration writing under `outputDirectory` (nil: into the cache only) with
    /// defaults sized to this machine, and no cache.
    public init(outputDirectory: URL?) {
        self.outputDirectory = outputDirectory
        self.maxPendingRows = 64 * max(2, ProcessInfo.processInfo.activeProcessorCount)
    }
}
