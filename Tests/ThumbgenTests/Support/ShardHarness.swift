import Foundation
import Testing
import Thumbgen

/// What the sharding tests share: a manifest of many rows per source, N shard processes run
/// at once, and reports and trees compared up to timings.
enum ShardHarness {
    /// Writes `sources` generated images (PNG, JPEG and WebP in turn) into `space` and a
    /// manifest with a row per source and size in `sizes`, plus `extra` rows; returns the
    /// manifest's text.
    static func manifest(in space: Workspace, sources: Int, sizes: [Int], extra: [[String]] = []) throws -> String {
        let formats: [(OutputFormat, String)] = [(.png, "png"), (.jpeg, "jpg"), (.webp, "webp")]
        var rows: [[String]] = []
        for index in 0..<sources {
            let (format, ext) = formats[index % formats.count]
            let name = "img/s\(index).\(ext)"
            let seed = index * 37
            try space.fixture(RawImage(width: 96 + index % 5 * 8, height: 64 + index % 3 * 8) { x, y in
                Colour(r: UInt8((x * 3 + seed) % 256), g: UInt8((y * 5 + seed * 2) % 256), b: UInt8((x ^ y ^ seed) & 0xff))
            }, name, as: format)
            for size in sizes {
                rows.append([name, "\(size)x\(size)", "t/s\(index)-\(size).\(index % 2 == 0 ? "webp" : "png")"])
            }
        }
        return CSV.manifest(["src", "size", "out"], rows + extra)
    }

    /// Runs `thumbgen ARGUMENTS(k)` for k in 0..<count at once, each with the environment
    /// `environment(k)` and a cache of its own under `space`; waits for all.
    static func runAll(_ count: Int, in space: Workspace, environment: (Int) -> [String: String] = { _ in [:] },
                       _ arguments: (Int) -> [String]) async throws -> [CLIResult] {
        let runners = try (0..<count).map { k in
            try CLIRunner(arguments(k), cacheDirectory: space.folder.file("cache-\(k)"), environment: environment(k))
        }
        for runner in runners { try runner.start() }
        var results: [CLIResult] = []
        for runner in runners { results.append(await runner.wait(timeout: .seconds(300))) }
        return results
    }

    /// A report's rows as JSON objects, without what timing changes (`ms`), and with the
    /// folders in `folders` (where each machine had the manifest) written `<site>/` in messages.
    static func rows(_ url: URL, folders: [String] = []) throws -> [NSDictionary] {
        let rows = try #require(try ReportSchemaTests.json(url)["rows"] as? [[String: Any]])
        return rows.map { row in
            var row = row
            row["ms"] = nil
            if var error = row["error"] as? [String: Any], var message = error["message"] as? String {
                for folder in folders { message = message.replacingOccurrences(of: folder + "/", with: "<site>/") }
                error["message"] = message
                row["error"] = error
            }
            return row as NSDictionary
        }
    }

    /// A report's summary, without what timing changes (`seconds`, `cpu_seconds`, `ms`).
    static func summary(_ url: URL) throws -> NSDictionary {
        var summary = try #require(try ReportSchemaTests.json(url)["summary"] as? [String: Any])
        for key in ["seconds", "cpu_seconds", "ms"] { summary[key] = nil }
        return summary as NSDictionary
    }

    /// The SHA-256 of a file, in hex, by coreutils' `sha256sum` (not the code under test).
    static func sha256(_ url: URL) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum", url.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(output.prefix(64))
    }
}
