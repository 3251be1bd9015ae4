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
}
