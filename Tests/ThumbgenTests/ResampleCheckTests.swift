import Foundation
import Testing
@testable import Thumbgen

/// The C resampler runs only where its bytes are the linked libvips's own: each process checks
/// a few cases at start, `doctor` says the verdict, and without it (a libvips that rounds
/// otherwise, or `THUMBGEN_NATIVE_RESAMPLE=off`) rows go through libvips' own resize.
@Suite("C resampler: used only where the linked libvips agrees")
struct ResampleCheckTests {
    @Test("On this libvips every checked case agrees, and doctor says it is in use")
    func agrees() async throws {
        try VipsRuntime.start()
        #expect(VipsResampleCheck.differences().isEmpty)
        #expect(VipsResampleCheck.agrees)
        let doctor = try await CLIRunner.run(["doctor", "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(doctor.stdout.utf8)) as? [String: Any]
        #expect(object?["native_resample"] as? Bool == true, "\(doctor.stdout.prefix(400))")
        #expect((object?["resampler"] as? String)?.hasPrefix("in use") == true)
    }

    @Test("Turned off, doctor says so, and libvips' own resize makes the same bytes")
    func off() async throws {
        let space = try Workspace("resample-off")
        try space.fixture(.quadrants(width: 900, height: 600), "q.jpg", as: .jpeg)
        try space.fixture(.quadrants(width: 500, height: 700), "p.png")
        let rows = ["q.jpg", "p.png"].flatMap { src in ["64", "320", "640"].map { [src, $0, "\(src)-\($0).png"] } }
        let manifest = CSV.manifest(["src", "size", "out"], rows)
        let on = try await space.run(manifest: manifest, ["--no-cache"])
        #expect(on.status == 0, "\(on.result.stderr)")
        let first = try space.outputFiles.map { ($0, try Data(contentsOf: space.output($0))) }
        let off = try await space.run(manifest: manifest, ["--no-cache"], environment: ["THUMBGEN_NATIVE_RESAMPLE": "off"])
        #expect(off.status == 0, "\(off.result.stderr)")
        for (name, bytes) in first where !name.hasPrefix(".") {
            #expect(try Data(contentsOf: space.output(name)) == bytes, "\(name)")
        }
        let doctor = try await CLIRunner.run(["doctor"], environment: ["THUMBGEN_NATIVE_RESAMPLE": "off"])
        #expect(doctor.stdout.contains("C resampler  off"), "\(doctor.stdout.prefix(300))")
    }

    /// A new user's first run: one row per source, cold, the defaults. Each lone JPEG is held in
    /// memory and resampled in C, where libvips' own resample streams the file: noise (where
    /// every tap counts) at sizes whose windows reach mask boundaries, the same bytes either
    /// way; then the same sources at two sizes each, rows shuffled, likewise. (The strip
    /// itself is held against libvips by `NativeResampleTests.sequentialStrips`.)
    @Test("One row per source, and shuffled sizes: the same bytes as libvips' own streamed resample")
    func loneRowsAsStreamed() async throws {
        let space = try Workspace("resample-lone")
        try space.fixture(StageTimeoutTests.noise(width: 1600, height: 1203), "a.jpg", as: .jpeg)
        try space.fixture(StageTimeoutTests.noise(width: 800, height: 601), "b.jpg", as: .jpeg)
        try space.fixture(StageTimeoutTests.noise(width: 517, height: 389), "c.jpg", as: .jpeg)
        for manifest in [
            CSV.manifest(["src", "size", "out"], ["a.jpg", "b.jpg", "c.jpg"].map { [$0, "256", "\($0)-256.jpg"] }),
            CSV.manifest(["src", "size", "out"], [["b.jpg", "128", "b-128.jpg"], ["a.jpg", "256", "a-256.jpg"],
                                                  ["c.jpg", "96", "c-96.jpg"], ["a.jpg", "128", "a-128.jpg"],
                                                  ["b.jpg", "256", "b-256.jpg"], ["c.jpg", "256", "c-256.jpg"]]),
        ] {
            let on = try await space.run(manifest: manifest, ["--no-cache"])
            #expect(on.status == 0, "\(on.result.stderr)")
            let made = try space.outputFiles.filter { !$0.hasPrefix(".") }.map { ($0, try Data(contentsOf: space.output($0))) }
            #expect(made.count >= 3)
            let off = try await space.run(manifest: manifest, ["--no-cache"], environment: ["THUMBGEN_NATIVE_RESAMPLE": "off"])
            #expect(off.status == 0, "\(off.result.stderr)")
            for (name, bytes) in made {
                #expect(try Data(contentsOf: space.output(name)) == bytes, "\(name)")
            }
        }
    }
}
