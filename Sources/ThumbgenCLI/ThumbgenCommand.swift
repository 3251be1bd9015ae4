import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen`: the command-line front of the Thumbgen library.
@main
struct ThumbgenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbgen",
        abstract: "thumbgen \(ThumbgenVersion.current): turn folders of images, or a manifest of outputs, into thumbnails, fast.",
        discussion: """
            `thumbgen photos/ --out thumbs/ --size 320,640 --format webp,jpeg` walks folders, \
            image files and globs, and writes each image at each size in each format, mirroring \
            the tree. For outputs with recipes of their own, give a CSV (or JSON Lines) manifest \
            with one row per output; `thumbgen manifest photos/` prints the one a folder stands \
            for. A row's src is a path, a file:// URL, an http(s):// URL (a user:password@ in it \
            is sent to that host only, and stored nowhere) or s3://BUCKET/KEY (signed with the \
            AWS key in the environment). Columns: \(ManifestColumn.knownNames). \
            Run `thumbgen render --help` for every option; see README.md and docs/ for the details.
            """,
        version: ThumbgenVersion.current,
        subcommands: [RenderCommand.self, SiteCommand.self, WarmCommand.self, ManifestCommand.self, ExplainCommand.self, CacheCommand.self, ReportCommand.self, DoctorCommand.self],
        defaultSubcommand: RenderCommand.self)

    /// Parses and runs the command, mapping argument errors to exit status 2 (the parser's
    /// own default is 64, but docs/command-line.md's exit statuses promise 2 for an unusable command line).
    static func main() {
        // Before libvips starts, and before any thread: only the modules of enabled loaders.
        VipsModules.deferLoading()
        // A worker process the parent started: no command line, no signal trap (the parent
        // ends it), straight to the units.
        if CommandLine.arguments.dropFirst().first == WorkerLoop.argument { WorkerLoop.run() }
        // `--version` alone: thumbgen's version and the libraries it runs with, which the
        // parser's own `--version` (the bare version, for the man page) cannot compute.
        if CommandLine.arguments.dropFirst().elementsEqual(["--version"]) {
            print(versionText)
            return
        }
        // Before anything else, so that a signal at any moment ends the process as promised.
        SignalTrap.shared.install()
        // thumbgen.toml's settings become the flags they stand for (docs/config.md).
        let configured: ConfigArguments
        do {
            configured = try ConfigArguments.apply(to: Array(CommandLine.arguments.dropFirst()),
                                                   directory: FileManager.default.currentDirectoryPath)
        } catch {
            FileHandle.standardError.write(Data("thumbgen: \(TerminalText.safe(error.description))\n".utf8))
            Foundation.exit(ExitStatus.unusable.rawValue)
        }
        do {
            var command = try parseAsRoot(configured.arguments)
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                let message = fullMessage(for: error)
                let explained = configured.explain(message) ?? message
                FileHandle.standardError.write(Data((TerminalText.safe(explained, keepingNewlines: true) + "\n").utf8))
                Foundation.exit(ExitStatus.unusable.rawValue)
            }
            // Help and other clean exits print on standard output as the parser does; an
            // error's message may quote an argument, so it is made safe for the terminal.
            guard code != .success else { exit(withError: error) }
            let message = fullMessage(for: error)
            if !message.isEmpty {
                FileHandle.standardError.write(Data((TerminalText.safe(message, keepingNewlines: true) + "\n").utf8))
            }
            Foundation.exit(code.rawValue)
        }
    }

    /// What `thumbgen --version` prints: thumbgen's version, then libvips' and libcurl's, one a
    /// line, as the loaded libraries report them.
    static var versionText: String {
        "thumbgen \(ThumbgenVersion.current)\nlibvips \(VipsRuntime.version)\nlibcurl \(CurlVersion.libraryVersion)"
    }
}
