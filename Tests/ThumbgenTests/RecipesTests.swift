import Foundation
import Testing

/// The recipes in README.md and docs/recipes.md, run exactly as written there (each block
/// follows a `<!-- recipe: NAME -->` marker), with the built `thumbgen` first on PATH.
@Suite("Docs: README recipes")
struct RecipesTests {
    /// The code block after `<!-- recipe: name -->` in README.md, else in docs/recipes.md.
    static func recipe(_ name: String) throws -> String {
        var readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("README.md"),
                                encoding: .utf8)
        if !readme.contains("<!-- recipe: \(name) -->") {
            readme = try String(contentsOf: TestPaths.packageRoot.appendingPathComponent("docs/recipes.md"),
                                encoding: .utf8)
        }
        let marker = try #require(readme.range(of: "<!-- recipe: \(name) -->"), "no recipe \(name)")
        let rest = readme[marker.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        return String(rest[open.upperBound..<close.lowerBound]) + "\n"
    }

    /// A folder with `manifest.csv` naming three images beside it.
    static func site() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("recipe")
        for (index, size) in [(0, (640, 480)), (1, (300, 500)), (2, (1000, 200))].map({ ($0.0, $0.1) }) {
            _ = try folder.write(try RawImage.quadrants(width: size.0, height: size.1).encoded(as: .jpeg),
                                 to: "photo\(index).jpg")
        }
        _ = try folder.write("src,size\nphoto0.jpg,\nphoto1.jpg,\nphoto2.jpg,128x128\n", to: "manifest.csv")
        return folder
    }

    /// Runs `script` with `sh` in `folder`, thumbgen's folder first on PATH, `environment` added.
    static func run(_ script: String, in folder: TemporaryDirectory, name: String = "recipe.sh",
                    environment extra: [String: String] = [:]) async throws -> (status: Int32, output: String)
    {
        let binary = try #require(TestPaths.thumbgen)
        let file = try folder.write(script, to: name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = [file.path]
        process.currentDirectoryURL = folder.url
        var environment = ProcessInfo.processInfo.environment
        environment["PATH"] = binary.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // Recipes that name no cache must not touch the user's.
        environment["THUMBGEN_CACHE_DIR"] = folder.file("default-cache").path
        environment.merge(extra) { $1 }
        process.environment = environment
        let log = folder.file("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: log)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let status = try await OffPool.run { () -> Int32 in
            process.waitUntilExit()
            return process.terminationStatus
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test("Static site: src/images mirrored under _site/img, an index with /img/ srcsets; a rebuild renders nothing; a deleted photo's outputs are pruned, a hand-written file stays")
    func staticSite() async throws {
        let site = try TemporaryDirectory("recipe")
        try site.write(try RawImage.quadrants(width: 1600, height: 1000).encoded(as: .jpeg), to: "src/images/2024/beach.jpg")
        try site.write(try RawImage.quadrants(width: 800, height: 600).encoded(as: .png), to: "src/images/cover.png")
        try site.write("not an image\n", to: "src/images/README.txt")
        let script = try Self.recipe("static-site")
        let first = try await Self.run(script, in: site)
        #expect(first.status == 0, "\(first.output)")
        let index = try ReportSchemaTests.json(site.file("_data/images.json"))
        let sources = try #require(index["sources"] as? [[String: Any]])
        #expect(sources.compactMap { $0["src"] as? String } == ["src/images/2024/beach.jpg", "src/images/cover.png"])
        let beach = sources.first?["formats"] as? [String: [String: Any]]
        #expect(beach?["webp"]?["srcset"] as? String
                == "/img/2024/beach-320x200.webp 320w, /img/2024/beach-640x400.webp 640w, /img/2024/beach-1280x800.webp 1280w")
        // The placeholders: in the entry, and drawn by the markup.
        let placeholder = sources.first?["placeholder"] as? [String: String]
        #expect(placeholder?["thumbhash"] != nil && placeholder?["lqip"]?.hasPrefix("data:image/webp;base64,") == true
                && placeholder?["dominant"]?.hasPrefix("#") == true, "\(String(describing: placeholder))")
        #expect((sources.first?["html"] as? String)?.contains(" style=\"background:#") == true)
        #expect(FileManager.default.fileExists(atPath: site.file("_site/img/2024/beach-1280x800.jpg").path))
        #expect(FileManager.default.fileExists(atPath: site.file("_site/img/cover-800x600.webp").path))
        let second = try await Self.run(script, in: site)
        #expect(second.status == 0 && second.output.contains("12 rows: 0 written, 12 unchanged"), "\(second.output)")
        #expect(second.output.contains(", 0 pruned in"), "\(second.output)")

        try site.write("User-agent: *\n", to: "_site/img/robots.txt")
        try FileManager.default.removeItem(at: site.file("src/images/cover.png"))
        let third = try await Self.run(script, in: site)
        #expect(third.status == 0 && third.output.contains("6 rows: 0 written, 6 unchanged"), "\(third.output)")
        #expect(third.output.contains(", 6 pruned in"), "\(third.output)")
        let left = TemporaryDirectory.files(under: site.file("_site/img"))
        #expect(left.filter { !$0.hasPrefix("2024/") } == ["robots.txt"], "\(left)")
        #expect(left.filter { $0.hasPrefix("2024/") }.count == 6, "\(left)")
    }

    @Test("Once: outputs within the box, a report, a contact sheet")
    func firstRun() async throws {
        let site = try Self.site()
        let (status, output) = try await Self.run(try Self.recipe("first-run"), in: site)
        #expect(status == 0, "\(output)")
        let report = try Report.read(site.file("report.json"))
        #expect(report.summary.written == 3)
        for row in report.rows {
            #expect((row.width ?? 0) <= 256 && (row.height ?? 0) <= 256, "\(row.src)")
            #expect(FileManager.default.fileExists(atPath: site.file("thumbs/\(row.out ?? "?")").path))
        }
        let html = try String(contentsOf: site.file("thumbs/index.html"), encoding: .utf8)
        #expect(html.contains("photo0-256x192.jpg"))
    }

    @Test("CI: the second job, with the cache restored and a fresh checkout, renders nothing")
    func ci() async throws {
        let site = try Self.site()
        let script = try Self.recipe("ci")
        let first = try await Self.run(script, in: site)
        #expect(first.status == 0, "\(first.output)")
        #expect(try Report.read(site.file("thumbs-report.json")).summary.cache?["miss"] == 3)
        // A fresh checkout: the outputs are gone, the restored cache is not.
        try FileManager.default.removeItem(at: site.file("public"))
        let second = try await Self.run(script, in: site)
        #expect(second.status == 0, "\(second.output)")
        let report = try Report.read(site.file("thumbs-report.json"))
        #expect(report.summary.cache?["hit"] == 3 && report.summary.written == 3, "\(report.summary)")
        #expect(report.rows.allSatisfy { $0.ms?["decode"] == nil && $0.ms?["render"] == nil })
    }

    @Test("Cron: warm fills the cache; the render after it only copies; a second warm finds it fresh")
    func cron() async throws {
        let site = try Self.site()
        let script = try Self.recipe("cron")
        let warm = try await Self.run(script, in: site, name: "warm-thumbnails.sh")
        #expect(warm.status == 0 && warm.output.isEmpty, "\(warm.output)")
        let report = try Report.read(site.file("warm-report.json"))
        #expect(report.summary.warm?["rendered"] == 3, "\(report.summary)")
        #expect(!FileManager.default.fileExists(atPath: site.file("public").path))

        let render = try await Self.run(try Self.recipe("ci"), in: site)
        #expect(render.status == 0, "\(render.output)")
        #expect(try Report.read(site.file("thumbs-report.json")).summary.cache?["hit"] == 3)

        let again = try await Self.run(script, in: site, name: "warm-thumbnails.sh")
        #expect(again.status == 0)
        #expect(try Report.read(site.file("warm-report.json")).summary.warm?["fresh"] == 3)

        // Publishing with --prune: a row gone from the export takes its output with it; a
        // file thumbgen did not place stays.
        let publish = try Self.recipe("cron-publish")
        let first = try await Self.run(publish, in: site, name: "publish-thumbnails.sh")
        #expect(first.status == 0 && first.output.isEmpty, "\(first.output)")
        let thumbs = site.file("public/thumbs")
        let before = TemporaryDirectory.files(under: thumbs)
        #expect(before.count == 3, "\(before)")
        _ = try site.write("hand-written\n", to: "public/thumbs/notes.txt")
        _ = try site.write("src,size\nphoto0.jpg,\nphoto1.jpg,\n", to: "manifest.csv")
        let second = try await Self.run(publish, in: site, name: "publish-thumbnails.sh")
        #expect(second.status == 0, "\(second.output)")
        let after = TemporaryDirectory.files(under: thumbs)
        #expect(after.count == 3 && after.contains("notes.txt") && !after.contains { $0.hasPrefix("photo2") }, "\(after)")
    }
}
