import Foundation
import Testing

/// `thumbgen.toml`: found where Cargo finds its manifest, each setting the flag it names, with
/// the precedence flag > `--preset` > command table > top level > default, and every mistake
/// named by file and line.
@Suite("End to end: thumbgen.toml")
struct ConfigFileTests {
    /// A folder with `photos/beach.jpg` (400×300) and `config` as its thumbgen.toml.
    static func project(_ config: String) throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("config")
        try folder.write(try SiteCommandTests.photo(width: 400, height: 300).encoded(as: .jpeg), to: "photos/beach.jpg")
        try folder.write(config, to: "thumbgen.toml")
        return folder
    }

    /// The output file names a render of `photos` into `out` made, with `arguments`.
    static func outputs(_ folder: TemporaryDirectory, _ arguments: [String] = [], in directory: String = "",
                        out: String = "out") async throws -> [String] {
        try? FileManager.default.removeItem(at: folder.file(out))
        let run = try await CLIRunner.run(["photos", "--out", out, "--no-cache"] + arguments,
                                          in: folder.file(directory))
        #expect(run.status == 0, "\(run.stderr)")
        return TemporaryDirectory.files(under: folder.file(out)).sorted()
    }

    @Test("Precedence, a level at a time: default, top level, the command's table, --preset, the flag")
    func precedence() async throws {
        let levels: [(config: String, arguments: [String], expected: [String])] = [
            ("", [], ["beach-400x300.jpg"]),
            ("size = \"100\"\n", [], ["beach-100x75.jpg"]),
            ("size = 100\n[render]\nsize = [200, 40]\n", [], ["beach-200x150.jpg", "beach-40x30.jpg"]),
            ("size = 100\n[render]\nsize = 200\n[presets.small]\nsize = \"60\"\nformat = \"webp\"\n",
             ["--preset", "small"], ["beach-60x45.webp"]),
            ("size = 100\n[render]\nsize = 200\n[presets.small]\nsize = \"60\"\nformat = \"webp\"\n",
             ["--preset", "small", "--size", "80"], ["beach-80x60.webp"]),
            ("[render]\nformat = \"webp\"\n", ["--no-config"], ["beach-400x300.jpg"]),
        ]
        for level in levels {
            let folder = try Self.project(level.config)
            #expect(try await Self.outputs(folder, level.arguments) == level.expected, "\(level.config) \(level.arguments)")
        }
    }

    @Test("Found in a folder above, or named with --config; its relative paths are relative to it")
    func foundAbove() async throws {
        let folder = try Self.project("out = \"thumbs\"\n[render]\nsize = 50\nreport = \"reports/run.json\"\n")
        try FileManager.default.createDirectory(at: folder.file("photos/deep"), withIntermediateDirectories: true)
        let run = try await CLIRunner.run(["..", "--no-cache"], in: folder.file("photos/deep"))
        #expect(run.status == 0, "\(run.stderr)")
        #expect(TemporaryDirectory.files(under: folder.file("thumbs")) == ["beach-50x38.jpg"])
        #expect(FileManager.default.fileExists(atPath: folder.file("reports/run.json").path))
        try folder.write("[render]\nsize = 30\n", to: "other/settings.toml")
        #expect(try await Self.outputs(folder, ["--config", "other/settings.toml"]) == ["beach-30x23.jpg"])
    }

    @Test("The site command's table sets its ladder and formats")
    func siteTable() async throws {
        let folder = try Self.project("[site]\nwidths = [100, 200]\nformats = \"none\"\nmin-width = 50\n")
        try folder.write("<p><img src=\"photos/beach.jpg\" alt=\"x\"></p>\n", to: "photos/../index.html")
        let run = try await CLIRunner.run(["site", ".", "--no-cache"], in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let page = try String(contentsOf: folder.file("index.html"), encoding: .utf8)
        #expect(page.contains("beach-100."), "\(page)")
        // The ladder's top is the largest width, the source being wider.
        #expect(page.contains(" 100w, _thumbgen/photos/beach-200.") && !page.contains("beach-400."), "\(page)")
        #expect(!page.contains("<source"), "\(page)")
    }

    @Test("Each kind of mistake exits 2 naming the file and the line", arguments: [
        ("quality = 70\n[render]\nsise = \"100\"\n", "thumbgen.toml:3: [render] sise: no such setting; did you mean size?"),
        ("colour = \"srgb\"\nbogus = 1\n", "thumbgen.toml:2: bogus: no such setting"),
        ("[render]\nfit = \"covr\"\n", "thumbgen.toml:2: [render] fit: --fit 'covr' is not one of inside"),
        ("[render\nfit = \"cover\"\n", "thumbgen.toml:1: Error while parsing table header"),
        ("[rendr]\nfit = \"cover\"\n", "thumbgen.toml:1: [rendr]: no such command"),
        ("[render]\ndry-run = \"yes\"\n", "thumbgen.toml:2: [render] dry-run: takes true or false, not yes"),
        ("[render]\nsize = 1979-05-27\n", "thumbgen.toml:2: [render] size: a date is not a setting's value"),
        ("[presets.card]\nsize = 1\nfitt = \"cover\"\n", "thumbgen.toml:3: [presets.card] fitt: no such setting; did you mean fit?"),
        ("[presets]\ncard = 3\n", "thumbgen.toml:2: [presets] card: a preset is a table of settings"),
    ])
    func mistakes(config: String, message: String) async throws {
        let folder = try Self.project(config)
        let run = try await CLIRunner.run(["photos", "--out", "out", "--no-cache"], in: folder.url)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(run.stderr.contains("thumbgen: ") && run.stderr.contains(message), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("out").path))
    }

    @Test("A row's preset fills its empty cells: the same bytes as the cells written out; the row's own cells win; a bad preset fails its row alone")
    func presetRows() async throws {
        let folder = try Self.project("""
            [presets.card]
            size = "80x60"
            fit = "cover"
            quality = 70
            format = "webp"
            [presets.hero]
            widths = [320, 640]
            """)
        try folder.write("""
            src,preset,size,fit,quality,format,out
            photos/beach.jpg,card,,,,,preset.webp
            photos/beach.jpg,,80x60,cover,70,webp,written-out.webp
            photos/beach.jpg,card,40x30,,,,smaller.webp
            photos/beach.jpg,poster,,,,,unknown.webp
            photos/beach.jpg,hero,,,,,site-only.webp

            """, to: "manifest.csv")
        let run = try await CLIRunner.run(["manifest.csv", "--out", "out", "--no-cache", "--size", "500"], in: folder.url)
        #expect(run.status == 1, "\(run.stderr)")
        let out = folder.file("out")
        #expect(try Data(contentsOf: out.appendingPathComponent("preset.webp"))
                == Data(contentsOf: out.appendingPathComponent("written-out.webp")))
        let smaller = try PixelImage.load(out.appendingPathComponent("smaller.webp"))
        #expect(smaller.width == 40 && smaller.height == 30)
        #expect(run.stderr.contains("row 5: column preset: 'poster' names no preset of the thumbgen.toml (its presets: card, hero)"), "\(run.stderr)")
        #expect(run.stderr.contains("row 6: column preset: 'hero' sets widths, which no manifest column is"), "\(run.stderr)")
        #expect(run.stderr.contains("5 rows: 3 written"), "\(run.stderr)")

        // Without a thumbgen.toml, the row fails naming its preset.
        let bare = try await CLIRunner.run(["manifest.csv", "--out", "bare", "--no-cache", "--no-config"], in: folder.url)
        #expect(bare.status == 1)
        #expect(bare.stderr.contains("row 2: column preset: 'card' names no preset"), "\(bare.stderr)")
    }

    @Test("An unknown preset is named with the ones there are")
    func unknownPreset() async throws {
        let folder = try Self.project("[presets.card]\nsize = 10\n")
        let run = try await CLIRunner.run(["photos", "--out", "out", "--preset", "hero"], in: folder.url)
        #expect(run.status == 2)
        #expect(run.stderr.contains("no preset hero ([presets.hero]); the presets are card"), "\(run.stderr)")
    }
}
