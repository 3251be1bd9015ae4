import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen manifest PATH…`: prints the manifest of every image under some folders, one row
/// per image, size and format.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Print a manifest with a row for every image file, size and format under some folders.",
        discussion: """
            Folders are walked recursively in sorted order; a file is taken when its content \
            is an image, whatever its name. Hidden files and folders, symbolic links (unless \
            --follow-links) and the --out and cache folders are skipped. Each row's dir is the \
            image's folder relative to the walked folder, so that `thumbgen render - --out \
            DIR` mirrors the tree ({dir}/{name}-{w}x{h}.{ext}). \
            `thumbgen render PATH… --out DIR` does the same in one step.
            """)

    @Argument(help: "Image files, folders (walked recursively) and globs (* and ? within a name, ** across folders; quote them).")
    var paths: [String]

    @Flag(help: "Print JSON Lines rather than CSV.")
    var jsonLines = false

    @Option(help: "The folder the render will write under: skipped where it lies inside a walked folder. Names no column.")
    var out: String?

    @OptionGroup
    var cache: CacheLocation

    @OptionGroup
    var walk: WalkOptions

    @Option(name: .customLong("enable-loader"),
            help: "Take the files of this opt-in libvips loader too, as a render given the same flag does: pdfload (PDF files) or svgload (SVG files); repeatable. Names no column.")
    var extraLoaders: [String] = []

    @OptionGroup
    var configChoice: ConfigChoice

    @OptionGroup(title: "Column defaults (each becomes a column)")
    var defaults: ColumnDefaults

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one image file, folder or glob") }
    }

    func run() throws {
        let skipped = [cache.directory] + (out.map { [URL(fileURLWithPath: $0)] } ?? [])
        let tree = TreeManifest(try walk.walker(paths, skipping: skipped, extraLoaders: extraLoaders), sizes: defaults.sizes,
                                formats: defaults.formats, defaults: defaults.values,
                                numbering: jsonLines ? .jsonLines : .csv)
        let writer = ManifestWriter(columns: tree.columns, jsonLines: jsonLines)
        var text = writer.header
        var unnamable = 0
        while case .success(let record)? = tree.next() {
            // A name no cell can hold (not UTF-8): said, and left out of the manifest.
            if !record.invalidColumns.isEmpty {
                printError("\(record.values[.src] ?? ""): the file's name is not UTF-8, which no manifest can name; left out")
                unnamable += 1
                continue
            }
            text += writer.line(record)
            // Printed as it goes, so that a render reading the pipe starts at once.
            if text.utf8.count >= 1 << 14 {
                FileHandle.standardOutput.write(Data(text.utf8))
                text = ""
            }
        }
        FileHandle.standardOutput.write(Data(text.utf8))
        WalkOptions.warnSkippedLinks(tree.skippedLinks)
        try WalkOptions.report(tree.problems)
        if unnamable > 0 { throw ExitStatus.unusable }
    }
}
