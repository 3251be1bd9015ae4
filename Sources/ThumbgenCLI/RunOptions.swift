import ArgumentParser
import Foundation
import Thumbgen

/// Options of a manifest run that `render` and `warm` share: report, parallelism, strictness.
struct RunOptions: ParsableArguments {
    @OptionGroup
    var configChoice: ConfigChoice

    @Option(help: "Write a JSON report with one record per row to this file; - for standard output (written when the run ends).")
    var report: String?

    @Option(help: "Write a JSON index of the outputs for web pages: for each source, its outputs by format with their width, height, bytes and path, and a ready srcset per format (schema in docs/index.schema.json); - for standard output (written when the run ends).")
    var index: String?

    @Option(help: "The URL the --out folder is served at (such as /thumbs/), put before each path in the --index's url and srcset (default: paths relative to --out).")
    var indexUrlPrefix: String?

    @Option(help: "The sizes attribute of the <picture> markup in the --index, such as \"(min-width: 800px) 50vw, 100vw\" (default: 100vw).")
    var sizes: String?

    @Option(help: "Placeholders the --report and --index give each source, from the pixels of its smallest output: dominant (#rrggbb), lqip (a data URI of a tiny blurred WebP, under 400 bytes), thumbhash (base64); a list, or none (default: dominant,lqip). The index's <picture> draws the LQIP on the dominant colour while the image loads. Made only with --report, --index or this option naming kinds (then kept in the cache for a later run); a later run that wants them renders that output again.")
    var placeholders: String?

    @Flag(help: "Leave out a WebP, AVIF or JPEG XL output that is not smaller than its source's JPEG (else PNG) output of the same width: not written, not in the --index, its row 'dropped' with both sizes in the --report.")
    var dropLarger = false

    @Option(help: "The bytes a source's outputs may come to together, e.g. 2M: a row whose output would take its source's total past it is not written and fails with over_budget (exit status 1). A source's rows are those next to each other in the manifest.")
    var budget: ByteSize?

    @Option(help: "Write an HTML contact sheet of every output (failures with their reason) to this file.")
    var html: String?

    @Option(help: "Images processed at once (default: the number of cores).")
    var jobs: Int?

    /// Where images are decoded.
    enum Isolation: String, ExpressibleByArgument, CaseIterable {
        case workers, none
    }

    @Option(help: "Where images are decoded, rendered and encoded: workers (supervised worker processes, one per job; a crash or hang fails only its source's rows) or none (in this process, like sharp or vipsthumbnail).")
    var isolation: Isolation = .workers

    @Option(help: "Memory the decodes in flight may hold together, e.g. 4G or 512M; each is estimated from its header and waits for room (default: half the machine's or container's memory). Workers only.")
    var maxMemory: ByteSize?

    @Option(help: "libvips worker threads per image (default: 1; more helps when a few huge images dominate).")
    var threadsPerImage: Int?

    @Option(help: "Exit with status 1 when a row fails (error), or 0 all the same (never).")
    var failOn: ManifestRunner.FailOn = .error

    @Flag(help: "Read standard input as JSON Lines rather than CSV.")
    var jsonLines = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors that stop the whole run (not each failed row, nor the summary, nor progress).")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also print a line for every row that succeeds.")
    var verbose = false

    /// When the progress line is shown.
    enum Progress: String, ExpressibleByArgument, CaseIterable {
        case auto, always, never
    }

    @Option(help: "Progress on standard error: auto (a line redrawn on a terminal, a plain line every 5 s elsewhere; off with -q), always, or never.")
    var progress: Progress = .auto

    @Option(help: "Write one JSON line per row event (started, loaded, written, unchanged, failed, cancelled) to this file as it happens; - for standard output.")
    var events: String?

    func validate() throws {
        let toStandardOutput = [("--report", report), ("--index", index), ("--events", events)]
            .filter { $0.1 == "-" }.map(\.0)
        if toStandardOutput.count > 1 {
            throw ValidationError("\(toStandardOutput.joined(separator: " and ")) all name standard output (-); give all but one a file")
        }
        if html == "-" {
            throw ValidationError("--html cannot be standard output (-): the contact sheet links its images relative to its own folder; name a file")
        }
        if let indexUrlPrefix {
            if index == nil { throw ValidationError("--index-url-prefix goes with --index") }
            if indexUrlPrefix.contains(where: { $0 == "," || $0.isWhitespace }) {
                throw ValidationError("--index-url-prefix '\(indexUrlPrefix)' holds a comma or a space, which would split a srcset candidate; percent-encode it")
            }
        }
        if let sizes {
            if index == nil { throw ValidationError("--sizes goes with --index") }
            if sizes.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--sizes is empty") }
        }
        if let placeholders {
            var rejected: String?
            if PlaceholderKind.parseList(placeholders, rejected: &rejected) == nil {
                throw ValidationError("--placeholders: '\(rejected ?? placeholders)' is not one of none, dominant, lqip, thumbhash")
            }
        }
        if let jobs, jobs < 1 { throw ValidationError("--jobs must be at least 1") }
        if let threadsPerImage, threadsPerImage < 1 {
            throw ValidationError("--threads-per-image must be at least 1")
        }
    }

    /// Sets the parallelism these options ask for.
    func apply(to configuration: inout PipelineConfiguration) {
        if let jobs { configuration.cpuConcurrency = jobs }
        if let threadsPerImage { configuration.threadsPerImage = threadsPerImage }
        if isolation == .workers {
            configuration.isolation = WorkerIsolation(maxMemory: maxMemory?.bytes)
        }
    }

    /// A pipeline configuration writing under `outputDirectory` (nil: into the cache only),
    /// with these options, `fetch`, `limits` and `cache` applied; opens the cache.
    func configuration(outputDirectory: URL?, fetch: FetchOptions, limits: LimitOptions,
                       cache: CacheOptions, lookOnly: Bool = false) throws -> PipelineConfiguration
    {
        var configuration = PipelineConfiguration(outputDirectory: outputDirectory)
        apply(to: &configuration)
        configuration.fetch = fetch.policy
        configuration.limits = limits.limits(fetch: fetch)
        configuration.extraLoaders = limits.extraLoaders
        configuration.cache = lookOnly ? cache.openToLook() : try cache.open()
        configuration.offline = cache.offline
        configuration.placeholders = report == nil && index == nil ? [] : placeholderKinds
        configuration.makesPlaceholders = makesPlaceholders
        configuration.dropLarger = dropLarger
        configuration.sourceBudget = budget.map { Int(clamping: $0.bytes) }
        return configuration
    }

    /// Whether the run makes placeholders: when `--placeholders` names kinds (kept in the cache
    /// for a later run's report or index), else when a report or an index will show them;
    /// otherwise nobody would see them.
    var makesPlaceholders: Bool {
        placeholders == nil ? report != nil || index != nil : !placeholderKinds.isEmpty
    }

    /// The placeholder kinds `--placeholders` names (validated already).
    var placeholderKinds: Set<PlaceholderKind> {
        var rejected: String?
        return placeholders.flatMap { PlaceholderKind.parseList($0, rejected: &rejected) } ?? PlaceholderKind.defaults
    }

    /// The runner for `input` with these options and `recipe`'s.
    func runner(input: ManifestRunner.Input, recipe: RecipeOptions, command: String) -> ManifestRunner {
        ManifestRunner(input: input, jsonLines: jsonLines, report: report, index: index,
                       indexURLPrefix: indexUrlPrefix, sizes: sizes, html: html,
                       events: events, quiet: quiet, verbose: verbose,
                       progress: ProgressDisplay.style(progress, quiet: quiet),
                       failOn: failOn, recipe: recipe, command: command)
    }
}
