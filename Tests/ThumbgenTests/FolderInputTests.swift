import Crypto
import Foundation
import Testing

/// Folders, globs and image files as input: `thumbgen manifest` walks them into rows, and
/// `thumbgen render PATH…` runs those rows in one step, exactly as the piped manifest would.
@Suite("End to end: folders as input")
struct FolderInputTests {
    static let lists = ["--size", "40,80", "--format", "webp,jpeg"]

    /// What a report row says, less the timings and where the output came from.
    static func facts(_ row: Report.Row) -> String {
        [String(row.row), row.id, row.src, row.status, row.out ?? "-", row.width.map(String.init) ?? "-",
         row.height.map(String.init) ?? "-", row.bytes.map(String.init) ?? "-", row.sha256 ?? "-",
         row.format ?? "-", row.error?.code ?? "-"].joined(separator: " | ")
    }

    @Test("manifest walks the tree: images by content in sorted order, a row per size and format, hidden names, links and --out skipped")
    func manifestOfTree() async throws {
        let space = try Workspace()
        try PhotoTree.make(in: space.folder)
        // A previous run's outputs inside the tree are not sources.
        try space.folder.write(try RawImage.quadrants(width: 20, height: 20).encoded(as: .png), to: "photos/thumbs/old.png")
        let run = try await CLIRunner.run(["manifest", "photos", "--out", "photos/thumbs", "--size", "40,80",
                                           "--format", "webp,jpeg", "--fit", "cover"], in: space.folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        var expected = ["src,dir,size,format,fit"]
        for image in PhotoTree.images {
            let dir = image.contains("/") ? String(image[..<image.lastIndex(of: "/")!]) : ""
            for size in ["40", "80"] {
                for format in ["webp", "jpeg"] { expected.append("photos/\(image),\(dir),\(size),\(format),cover") }
            }
        }
        #expect(run.stdout == expected.joined(separator: "\n") + "\n")

        // With --follow-links the link to an image is a source and the loop is an error that
        // names it; the other rows are all there.
        let links = try await CLIRunner.run(["manifest", "photos", "--out", "photos/thumbs", "--follow-links",
                                             "--json-lines"], in: space.folder.url)
        #expect(links.status == 2)
        #expect(links.stderr.contains("photos/2024/back: the symbolic link leads back to photos"), "\(links.stderr)")
        let sources = links.stdout.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: String]
        }.compactMap { $0["src"] }
        #expect(sources == PhotoTree.images.map { "photos/" + $0 } + ["photos/link.png"])
    }

    @Test("render DIR and manifest DIR | render - write the same tree and the same report rows")
    func renderFolderEqualsPipedManifest() async throws {
        let direct = try Workspace(), piped = try Workspace()
        try PhotoTree.make(in: direct.folder)
        try PhotoTree.make(in: piped.folder)
        // --out inside the walked folder, in both.
        let one = try await CLIRunner.run(["render", "photos", "--out", "photos/thumbs", "--no-cache",
                                           "--report", "report.json"] + Self.lists, in: direct.folder.url)
        #expect(one.status == 0, "\(one.stderr)")
        let manifest = try await CLIRunner.run(["manifest", "photos", "--out", "photos/thumbs"] + Self.lists,
                                               in: piped.folder.url)
        #expect(manifest.status == 0, "\(manifest.stderr)")
        let two = try await CLIRunner.run(["render", "-", "--out", "photos/thumbs", "--no-cache", "--report", "report.json"],
                                          in: piped.folder.url, stdin: Data(manifest.stdout.utf8))
        #expect(two.status == 0, "\(two.stderr)")

        let written = try CacheFiles.tree(direct.folder.file("photos/thumbs"))
        #expect(written == (try CacheFiles.tree(piped.folder.file("photos/thumbs"))))
        #expect(written.keys.sorted() == [
            "2024/Été à Paris/beach day-40x25.jpg", "2024/Été à Paris/beach day-40x25.webp",
            "2024/Été à Paris/beach day-80x50.jpg", "2024/Été à Paris/beach day-80x50.webp",
            "2024/Été à Paris/scan-40x27.jpg", "2024/Été à Paris/scan-40x27.webp",
            "2024/Été à Paris/scan-80x53.jpg", "2024/Été à Paris/scan-80x53.webp",
            "cover-40x27.jpg", "cover-40x27.webp", "cover-80x53.jpg", "cover-80x53.webp",
        ])
        let rows = try Report.read(direct.folder.file("report.json")).rows
        #expect(rows.map(Self.facts) == (try Report.read(piped.folder.file("report.json")).rows.map(Self.facts)))
        #expect(rows.map(\.row) == Array(2...13))

        // Again, with the outputs now in the tree and a cache inside it too: the same rows,
        // no thumbnail of a thumbnail.
        let again = try await CLIRunner.run(["render", "photos", "--out", "photos/thumbs", "--cache-dir", "photos/cache",
                                             "--report", "again.json"] + Self.lists, in: direct.folder.url)
        #expect(again.status == 0, "\(again.stderr)")
        let third = try await CLIRunner.run(["render", "photos", "--out", "photos/thumbs", "--cache-dir", "photos/cache",
                                             "--report", "again.json"] + Self.lists, in: direct.folder.url)
        #expect(third.status == 0, "\(third.stderr)")
        let rerun = try Report.read(direct.folder.file("again.json"))
        #expect(rerun.rows.map(\.src) == rows.map(\.src) && rerun.summary.unchanged == 12)
        #expect(try CacheFiles.tree(direct.folder.file("photos/thumbs")) == written)
    }

    // Also with the defaults: one row a source, cold, the cache on (a user's first sharded run).
    @Test("render DIR --shard: two shards name the piped manifest's SHA-256, and their merged report is the single run's",
          arguments: [lists + ["--no-cache"], []])
    func shardsOfTree(options: [String]) async throws {
        let space = try Workspace()
        try PhotoTree.make(in: space.folder)
        let whole = try await CLIRunner.run(["render", "photos", "--out", "out", "--report", "whole.json"]
                                            + options, in: space.folder.url)
        #expect(whole.status == 0, "\(whole.stderr)")
        for k in 0..<2 {
            let shard = try await CLIRunner.run(["render", "photos", "--out", "out", "--report", "s\(k).json",
                                                 "--shard", "\(k)/2"] + options, in: space.folder.url)
            #expect(shard.status == 0, "\(shard.stderr)")
        }
        let manifest = try await CLIRunner.run(["manifest", "photos", "--out", "out"] + options.filter { $0 != "--no-cache" },
                                               in: space.folder.url)
        let digest = SHA256.hash(data: Data(manifest.stdout.utf8)).map { String(format: "%02x", $0) }.joined()
        for k in 0..<2 {
            let shard = try #require(try ReportSchemaTests.json(space.folder.file("s\(k).json"))["shard"] as? [String: Any])
            #expect(shard["manifest_sha256"] as? String == digest)
        }
        let merge = try await CLIRunner.run(["report", "merge", "s0.json", "s1.json", "-o", "merged.json"], in: space.folder.url)
        #expect(merge.status == 0, "\(merge.stderr)")
        let merged = try Report.read(space.folder.file("merged.json")).rows.map { [String($0.row), $0.src, $0.out ?? ""] }
        #expect(merged == (try Report.read(space.folder.file("whole.json")).rows.map { [String($0.row), $0.src, $0.out ?? ""] }))
    }

    @Test("Globs: ** crosses folders, * stays in one, names are matched and contents sniffed; no match is an error")
    func globs() async throws {
        let space = try Workspace()
        try PhotoTree.make(in: space.folder)
        let deep = try await CLIRunner.run(["manifest", "photos/**/*.jpg", "photos/*.png"], in: space.folder.url)
        #expect(deep.status == 0, "\(deep.stderr)")
        #expect(deep.stdout == """
            src,dir
            photos/2024/Été à Paris/beach day.jpg,2024/Été à Paris
            photos/cover.png,

            """)
        // Walked from inside: the paths have no ./ in front.
        let here = try await CLIRunner.run(["manifest", ".", "--size", "40"], in: space.folder.file("photos"))
        #expect(here.stdout == (["src,dir,size"] + PhotoTree.images.map {
            "\($0),\($0.contains("/") ? "2024/Été à Paris" : ""),40"
        }).joined(separator: "\n") + "\n", "\(here.stdout)")
        let none = try await CLIRunner.run(["render", "photos/*.gif", "photos/cover.png", "--out", "out"], in: space.folder.url)
        #expect(none.status == 2)
        #expect(none.stderr.contains("photos/*.gif: the pattern matches no file"), "\(none.stderr)")
        // What did match was still rendered.
        #expect(FileManager.default.fileExists(atPath: space.folder.file("out/cover-120x80.png").path))
        let missing = try await CLIRunner.run(["manifest", "photos/nope"], in: space.folder.url)
        #expect(missing.status == 2 && missing.stderr.contains("photos/nope: no such file or folder"), "\(missing.stderr)")
        let text = try await CLIRunner.run(["render", "photos/cover.png", "photos/fake.jpg", "--out", "out"], in: space.folder.url)
        #expect(text.status == 2 && text.stderr.contains("photos/fake.jpg is not an image, a folder or a glob"), "\(text.stderr)")
    }

    @Test("Sources that still collide after {dir} fail as the output-conflict rule says")
    func collisions() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 60, height: 40), "photos/a/one.png")
        try space.fixture(.quadrants(width: 60, height: 40, [.blue, .red, .green, .yellow]), "photos/b/one.png")
        try space.fixture(.quadrants(width: 60, height: 40, [.green, .red, .blue, .yellow]), "photos/b/one.webp", as: .webp)
        let mirrored = try await CLIRunner.run(["render", "photos", "--out", "out", "--format", "png", "--report", "r.json"],
                                               in: space.folder.url)
        #expect(mirrored.status == 1, "\(mirrored.stderr)")
        let report = try Report.read(space.folder.file("r.json"))
        #expect(report.rows.map { $0.out ?? $0.error?.code ?? "" } == ["a/one-60x40.png", "b/one-60x40.png", "output_conflict"])
        let flat = try await CLIRunner.run(["render", "photos", "--out", "flat", "--out-template", "{name}.{ext}",
                                            "--format", "png", "--report", "f.json"], in: space.folder.url)
        #expect(flat.status == 1)
        let flatReport = try Report.read(space.folder.file("f.json"))
        #expect(flatReport.rows.map { $0.error?.code ?? $0.status } == ["written", "output_conflict", "output_conflict"])
        #expect(flatReport.rows[1].error?.message.contains("row 2") == true)
    }

    @Test("A manifest's dir column fills {dir}; one that leaves --out fails its row; lists need folders")
    func dirColumn() async throws {
        let space = try Workspace()
        try space.fixture(.quadrants(width: 60, height: 40), "a.png")
        let run = try await space.run(manifest: "src,dir\na.png,x/./y\na.png,../up\na.png,\n", ["--size", "30"])
        #expect(run.status == 1)
        #expect(run.report?.row(2)?.out == "x/y/a-30x20.png")
        #expect(run.report?.row(3)?.error?.message.contains("column dir: '../up' contains '..'") == true,
                "\(String(describing: run.report?.row(3)))")
        #expect(run.report?.row(4)?.out == "a-30x20.png")
        let list = try await space.run(manifest: "src\na.png\n", ["--size", "30,60"])
        #expect(list.status == 2 && list.result.stderr.contains("--size lists 2 values, but a manifest row has one"),
                "\(list.result.stderr)")
    }
}
