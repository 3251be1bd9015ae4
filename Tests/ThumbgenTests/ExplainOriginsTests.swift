import Foundation
import Testing

/// `thumbgen explain` with a `thumbgen.toml`: it plans a row as `render` does (the render
/// table, the row's preset), and names where each setting came from.
@Suite("End to end: explain's setting origins")
struct ExplainOriginsTests {
    static let config = """
        [render]
        fit = "cover"
        quality = 70

        [presets.card]
        size = "100x80"
        sharpen = "none"

        [presets.big]
        quality = 90

        """

    /// The settings of each row explained, as `name: from` lines, and the plans.
    static func explain(_ folder: TemporaryDirectory, _ arguments: [String]) async throws
        -> (plans: [String], settings: [[String: String]]) {
        let run = try await CLIRunner.run(["explain", "m.csv", "2", "3", "--out", "out", "--json", "--cache-dir", "cache"] + arguments,
                                          in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
        let settings = rows.map { row in
            Dictionary(uniqueKeysWithValues: ((row["settings"] as? [[String: String]]) ?? []).map {
                ($0["name"] ?? "", "\($0["value"] ?? "") from \($0["from"] ?? "")")
            })
        }
        return (rows.map { $0["plan"] as? String ?? "" }, settings)
    }

    @Test("After a render, explain plans keep for a preset row and a plain one, and names each setting's origin")
    func origins() async throws {
        let folder = try ConfigFileTests.project(Self.config)
        try folder.write("src,size,preset,format\nphotos/beach.jpg,,card,webp\nphotos/beach.jpg,50,,\n", to: "m.csv")
        let render = try await CLIRunner.run(["m.csv", "--out", "out", "--kernel", "cubic", "--cache-dir", "cache"], in: folder.url)
        #expect(render.status == 0, "\(render.stderr)")

        let file = folder.file("thumbgen.toml").path
        let (plans, settings) = try await Self.explain(folder, ["--kernel", "cubic"])
        // The same keys as the run: the render table and the row's preset entered both.
        #expect(plans == ["keep", "keep"])
        #expect(settings[0] == [
            "size": "100x80 from the row's preset card (\(file):5)",
            "sharpen": "none from the row's preset card (\(file):5)",
            "format": "webp from the row",
            "fit": "cover from \(file):2: [render] fit",
            "quality": "70 from \(file):3: [render] quality",
            "kernel": "cubic from --kernel on the command line",
        ])
        #expect(settings[1]["size"] == "50 from the row")
        #expect(settings[1]["sharpen"] == nil && settings[1]["format"] == nil)

        // --preset's table beats the render table; a flag beats both; and the key moves with them.
        let (presetPlans, presetSettings) = try await Self.explain(folder, ["--kernel", "cubic", "--preset", "big"])
        #expect(presetSettings[1]["quality"] == "90 from \(file):10: [presets.big] quality")
        #expect(presetPlans == ["render", "render"])
        let (_, flagSettings) = try await Self.explain(folder, ["--preset", "big", "--quality", "40"])
        #expect(flagSettings[1]["quality"] == "40 from --quality on the command line")
        #expect(flagSettings[1]["kernel"] == nil)
    }
}
