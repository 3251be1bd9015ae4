import ArgumentParser
import Foundation
import Synchronization
import Thumbgen

/// `thumbgen site DIR`: makes a built site's images responsive, in place.
struct SiteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "site",
        abstract: "Make every <img> of a built site's HTML responsive: a ladder of widths in modern formats, and each <img> wrapped in a <picture> with srcset, sizes, width and height.",
        discussion: """
            Finds the <img> elements of DIR's .html files with an HTML5 parser, renders each \
            image they show (once, whatever the number of pages) into DIR/_thumbgen/, and \
            replaces each <img> tag with a <picture>: every other byte of the page stays as it \
            was, and a second run changes nothing. SVGs, animations, small images, other sites' \
            images, an <img> with its own srcset or in a <picture>, and any marked \
            data-thumbgen="skip" are left alone (counted in the summary; not failures). See \
            docs/site.md.
            """)

    @Argument(help: "The built site's folder (Hugo's public/, MkDocs' site/, ...).")
    var directory: String

    @Option(help: "The widths of the ladder, comma-separated; each kept where the image is at least a quarter wider, and the image's own width (up to the largest) added.")
    var widths = "320,640,960,1280,1920"

    @Option(help: "The formats of the <source> elements, best first, comma-separated (webp, avif, jxl), or none; the <img> falls back to JPEG, or PNG where the image has alpha.")
    var formats = "webp"

    @Option(help: "Images narrower than this (in pixels) are left alone: icons and badges.")
    var minWidth = 128

    @Option(help: "The folder of DIR the outputs go in.")
    var outFolder = "_thumbgen"

    @Option(help: "The site's own address, such as https://example.org/: an <img src> under it is a file of DIR (its path from DIR's root), not another site's image.")
    var baseUrl: String?

    @Flag(help: "Download other sites' images (http, https) through the cache, as a manifest's URL sources are, and make them responsive too; without it they are left alone.")
    var fetch = false

    @Flag(help: "List every <img> that would be rewritten, touching nothing.")
    var dryRun = false

    @Flag(help: "Remove the outputs an earlier run placed in the output folder that no page shows any more (never a file thumbgen did not place, nor one changed since); skipped when a page was left untouched.")
    var prune = false

    @Flag(help: "After the run, watch the site and run again whenever a page or an image of it is added, changed or removed, until Ctrl-C.")
    var watch = false

    @OptionGroup(title: "Run")
    var options: RunOptions

    @OptionGroup
    var recipe: RecipeOptions

    func validate() throws {
        guard SiteSettings.widths(widths) != nil else { throw ValidationError("--widths takes whole numbers above 0, comma-separated") }
        guard !outFolder.isEmpty, !outFolder.hasPrefix("/"), !outFolder.split(separator: "/").contains("..") else {
            throw ValidationError("--out-folder must be a folder inside the site")
        }
        guard SiteSettings.formats(formats) != nil else { throw ValidationError("--formats takes webp, avif, jxl or none") }
    }

    func run() throws {
        if watch && !WatchLoop.isChild {
            let written = [options.events, options.report].compactMap { $0 }
            WatchLoop.run(roots: [directory], skipping: [(directory as NSString).appendingPathComponent(outFolder),
                                                         recipe.cache.directory.path] + written,
                          events: options.events)
        }
        var settings = SiteSettings()
        settings.widths = SiteSettings.widths(widths) ?? settings.widths
        settings.formats = SiteSettings.formats(formats) ?? settings.formats
        // --sizes (the run's option, which the --index uses too): an <img> without sizes of its own gets it.
        settings.sizes = options.sizes ?? settings.sizes
        settings.minWidth = minWidth
        settings.outFolder = outFolder
        settings.baseURL = baseUrl
        settings.fetch = fetch
        let plan: SitePlan
        do {
            // The thumbgen.toml's presets, for the images that name one or a rule gives one.
            let config = ConfigArguments.loaded.withLock { $0 }
            for (name, entries) in config.presets {
                do {
                    settings.presets[name] = try SitePreset(name: name, settings: entries)
                } catch {
                    settings.presetProblems[name] = error.description
                }
            }
            settings.rules = config.siteRules.map { SiteRule(pattern: $0.pattern, preset: $0.preset) }
            plan = try SitePlan(root: directory, settings: settings)
        } catch {
            printError(error.description)
            throw ExitStatus.unusable
        }
        // A preset an image was to be made with that holds what the site cannot apply: the
        // file's mistake, named as one (a preset no image uses may serve another command).
        if !plan.badPresetsUsed.isEmpty {
            let file = ConfigArguments.loaded.withLock { $0.file } ?? ConfigFile.name
            plan.badPresetsUsed.sorted().forEach { printError("\(file): \(settings.presetProblems[$0] ?? $0)") }
            throw ExitStatus.unusable
        }
        plan.untouched.forEach { printError("\($0.page): left untouched: it \($0.reason)") }
        plan.presetErrors.forEach { printError($0) }
        if !plan.remoteURLs.isEmpty && !dryRun { try download(plan) }
        let rows = SiteRows(plan)
        if dryRun {
            plan.eligibleLines().forEach { printError("would rewrite \($0)") }
            if !options.quiet { printError(summary(plan, nil)) }
            return
        }
        let out = URL(fileURLWithPath: plan.root).appendingPathComponent(outFolder)
        var configuration = try options.configuration(outputDirectory: out, fetch: recipe.fetch, limits: recipe.limits,
                                                  cache: recipe.cache, lookOnly: false)
        configuration.fetch.credentials = try recipe.sources.credentials()
        // The <img>'s background while it loads: the dominant colour and the LQIP, unless
        // --placeholders says otherwise (none: no background).
        let kinds: Set<PlaceholderKind> = options.placeholders == nil ? [.dominant, .lqip] : options.placeholderKinds
        configuration.placeholders = kinds
        configuration.makesPlaceholders = !kinds.isEmpty
        let heard = Mutex<[RowResult]>([])
        // A PNG fallback is fetched only by browsers without the <source> formats; with none,
        // it is every browser's image, and keeps libvips' level.
        var recipe = recipe
        recipe.formats.pngCompression = recipe.formats.pngCompression
            ?? (settings.formats.isEmpty ? EncodingOptions().pngCompression : SiteSettings.fallbackPNGCompression)
        recipe.formats.pngFilter = recipe.formats.pngFilter
            ?? (settings.formats.isEmpty ? EncodingOptions().pngFilter : SiteSettings.fallbackPNGFilter)
        var runner = options.runner(input: .rows(rows, count: rows.count), recipe: recipe, command: "site")
        runner.onResults = { results in heard.withLock { $0 += results } }
        // The pages are rewritten once every row has finished (from the rows that were made,
        // should some fail), before the report closes: its `pages` section says what became
        // of each.
        let rewritten = Mutex<SiteOutcome?>(nil)
        // A page that cannot be written is said after the run has closed its report, its record
        // of placed files and its cache, which it would otherwise skip.
        let writeError = Mutex<String?>(nil)
        runner.beforeFinish = {
            do {
                let outcome = try plan.rewrite(results: heard.withLock { $0 })
                rewritten.withLock { $0 = outcome }
                return outcome.pages
            } catch {
                writeError.withLock { $0 = String(describing: error) }
                return nil
            }
        }
        // A page left untouched may show outputs no row of this run makes: keep them all.
        runner.prune = prune && plan.untouched.isEmpty
        if prune && !plan.untouched.isEmpty { printError("not pruning: \(plan.untouched.count) pages were left untouched") }
        var failure: Error?
        do {
            try runner.run(configuration)
        } catch let status as ExitCode where status == ExitStatus.rowFailed {
            failure = status
        }
        if let message = writeError.withLock({ $0 }) {
            printError("a page cannot be written: \(message)")
            throw ExitStatus.unwritable
        }
        guard let outcome = rewritten.withLock({ $0 }) else { throw failure ?? ExitStatus.rowFailed }
        outcome.changedMeanwhile.forEach { printError("\($0): left untouched: it changed while thumbgen ran") }
        if !options.quiet { printError(summary(plan, outcome)) }
        if let failure { throw failure }
        let untouched = !plan.untouched.isEmpty || !outcome.changedMeanwhile.isEmpty
        if outcome.elementsFailed > 0 || !plan.presetErrors.isEmpty || untouched, options.failOn == .error {
            throw ExitStatus.rowFailed
        }
    }

    /// Downloads other sites' images into the cache (`--fetch`), through the pipeline as any
    /// URL source (its limits, retries, freshness and address guard), then decides their
    /// elements from the bodies stored. A URL that could not be downloaded is named and its
    /// elements left alone (`unreachable`).
    private func download(_ plan: SitePlan) throws {
        let urls = plan.remoteURLs
        var configuration = try options.configuration(outputDirectory: nil, fetch: recipe.fetch, limits: recipe.limits,
                                                      cache: recipe.cache, lookOnly: false)
        guard configuration.cache != nil else {
            printError("--fetch keeps the images it downloads in the cache: it cannot run with --no-cache")
            throw ExitStatus.unusable
        }
        configuration.fetch.credentials = try recipe.sources.credentials()
        configuration.placeholders = []
        var runner = options.runner(input: .rows(SiteRows(downloading: urls), count: urls.count), recipe: recipe,
                                    command: "site")
        (runner.report, runner.index, runner.html, runner.events, runner.quiet) = (nil, nil, nil, nil, true)
        let failures = Mutex<[String]>([])
        runner.onResults = { results in
            let lines = results.compactMap { result in result.error.map { "\(result.src): not used: \($0.message)" } }
            failures.withLock { $0 += lines }
        }
        do {
            try runner.run(configuration)
        } catch let status as ExitCode where status == ExitStatus.rowFailed {
            // The images that came are used; the others are named below.
        }
        if !options.quiet { failures.withLock { $0 }.forEach(printError) }
        // The run closed its cache: the bodies are looked up in it afresh.
        let stored = recipe.cache.openToLook()
        var bodies: [String: String] = [:]
        for url in urls { bodies[url] = stored?.storedBody(of: url) }
        stored?.close()
        plan.settleRemote(bodies: bodies)
    }

    private func summary(_ plan: SitePlan, _ outcome: SiteOutcome?) -> String {
        let skipped = plan.skipped.values.reduce(0, +)
        let reasons = plan.skipped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key.rawValue)" }.joined(separator: ", ")
        var line = "site: \(plan.pageCount) pages"
        if let outcome {
            let untouched = plan.untouched.count + outcome.changedMeanwhile.count
            line += " (\(outcome.pagesChanged) rewritten, \(outcome.pagesUnchanged) unchanged, \(untouched) untouched)"
            line += "; images: \(outcome.elementsRewritten) rewritten, \(outcome.elementsFailed + plan.presetErrors.count) failed"
        } else {
            line += "; images: \(plan.eligibleLines().count) would be rewritten"
        }
        line += ", \(skipped) left alone" + (reasons.isEmpty ? "" : " (\(reasons))")
        return line
    }
}
