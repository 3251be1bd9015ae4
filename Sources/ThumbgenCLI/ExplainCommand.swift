import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen explain MANIFEST ROW…`: what a run would do for the rows named, and why.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Say what a run would do for some rows of a manifest, and why, touching nothing.",
        discussion: """
            Prints each row's plan (keep, copy, render, read, fetch, revalidate or fail) with \
            its reasons: the output key's parts, what the cache and --out hold, a URL's \
            freshness arithmetic, and which part of the key changed since an output of the \
            same source was last made. Give the same options as the run (--out, column \
            defaults, format flags, --decode-strictness): they enter the key.
            """)

    @Argument(help: "The manifest: a CSV file with a header row, a .jsonl/.ndjson file, or - for standard input.")
    var manifest: String

    @Argument(help: "Rows to explain: the row number (its line, as reports give it) or the id.")
    var rows: [String]

    @Option(help: "The folder the run writes under (without it, the row is explained as `warm` sees it).")
    var out: String?

    @Flag(help: "Print a JSON array with one object per row instead of text.")
    var json = false

    @Flag(help: "Read standard input as JSON Lines rather than CSV.")
    var jsonLines = false

    @OptionGroup
    var recipe: RecipeOptions

    @OptionGroup
    var configChoice: ConfigChoice

    func validate() throws {
        if rows.isEmpty { throw ValidationError("name at least one row (its number or its id)") }
        try recipe.defaults.checkSingleValues()
    }

    func run() throws {
        var configuration = PipelineConfiguration(outputDirectory: out.map { URL(fileURLWithPath: $0) })
        configuration.limits = recipe.limits.limits(fetch: recipe.fetch)
        configuration.cache = recipe.cache.openToLook()
        configuration.offline = recipe.cache.offline
        let explainer = Explainer(configuration: configuration)
        let reader: ManifestReader
        do {
            reader = try ManifestReader(path: manifest, jsonLines: jsonLines ? true : nil)
        } catch {
            printError(error.description)
            throw ExitStatus.unusable
        }
        let parser = recipe.parser(baseDirectory: reader.baseDirectory)
        // A row naming a preset is explained as a run expands it; each setting says where it
        // came from.
        let config = ConfigArguments.loaded.withLock { $0 }
        let expansion = PresetExpansion(reader, presets: config.presets)
        let origins = SettingOrigins(arguments: config.arguments.isEmpty ? Array(CommandLine.arguments.dropFirst()) : config.arguments,
                                     fromFile: config.origins, presetLines: config.presetLines, file: config.file)
        let wanted = Set(rows)
        var found: [Explanation] = []
        var matched: Set<String> = []
        do {
            while let entry = try reader.next() {
                switch entry {
                case .failure(let error):
                    guard wanted.contains(String(error.row)) else { continue }
                    matched.insert(String(error.row))
                    found.append(explainer.explain(error))
                case .success(let record):
                    let id = record.values[.id].flatMap { $0.isEmpty ? nil : $0 } ?? String(record.line)
                    let names = [String(record.line), id].filter(wanted.contains)
                    guard !names.isEmpty else { continue }
                    matched.formUnion(names)
                    switch expansion.expand(record) {
                    case .failure(let error):
                        found.append(explainer.explain(error))
                    case .success(let expanded):
                        var explanation = explainer.explain(expanded, parser: parser)
                        explanation.settings = origins.settings(raw: record, expanded: expanded)
                        found.append(explanation)
                    }
                }
            }
        } catch {
            printError(error.description)
            throw ExitStatus.unusable
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(found), as: UTF8.self))
        } else {
            print(TerminalText.safe(found.map(\.text).joined(separator: "\n\n"), keepingNewlines: true))
        }
        let missing = rows.filter { !matched.contains($0) }
        if !missing.isEmpty {
            printError("no row \(missing.joined(separator: ", ")) in \(manifest) (give a row number or an id)")
            throw ExitStatus.unusable
        }
    }
}
