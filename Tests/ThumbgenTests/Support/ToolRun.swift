import Foundation

/// Runs a command-line tool the tests use as an independent party or a maker of fixtures
/// (`vips`, `exiftool`, `gs`, `heif-enc`), its standard output captured, waited for off the
/// concurrency pool (`OffPool`); nil when the tool is not installed.
enum ToolRun {
    /// What one run gave.
    struct Output {
        var status: Int32
        var stdout: String
    }

    /// `tool` (an absolute path) with `arguments`, waited for; nil when `tool` is absent.
    static func run(_ tool: String, _ arguments: [String]) async throws -> Output? {
        guard FileManager.default.isExecutableFile(atPath: tool) else { return nil }
        return try await OffPool.run { try runHere(tool, arguments) }
    }

    private static func runHere(_ tool: String, _ arguments: [String]) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let scratch = try TemporaryDirectory("tool")
        let outURL = scratch.file("stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return Output(status: process.terminationStatus,
                      stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "")
    }

    /// `run`, throwing unless the tool exited 0.
    static func checked(_ tool: String, _ arguments: [String]) async throws -> String {
        guard let output = try await run(tool, arguments) else { throw FixtureError("\(tool) is not installed") }
        guard output.status == 0 else {
            throw FixtureError("\(tool) \(arguments.joined(separator: " ")) exited \(output.status)")
        }
        return output.stdout
    }
}
