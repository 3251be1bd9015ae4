// Uses the Thumbgen library directly: three thumbnails of one image, without a manifest.
//
//     swift run LibraryExample examples/images/sunset.jpg /tmp/thumbs
import Foundation
import Thumbgen

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: LibraryExample IMAGE OUTPUT-FOLDER\n".utf8))
    exit(2)
}
let imagePath = URL(fileURLWithPath: arguments[1]).standardizedFileURL.path
let outputFolder = URL(fileURLWithPath: arguments[2])

// One request per output; a spec holds everything that changes the output's bytes.
func request(row: Int, box: String, fit: Fit, format: OutputFormat) -> ThumbnailRequest {
    var spec = ThumbnailSpec()
    spec.box = TargetBox(parsing: box) ?? .unbounded
    spec.fit = fit
    spec.format = .fixed(format)
    return ThumbnailRequest(row: row, id: "\(fit.rawValue)-\(box)", sourceText: imagePath,
                            source: .file(imagePath), outTemplate: "{name}-{fit}-{w}x{h}.{ext}",
                            spec: spec)
}

let collector = ResultCollector()
do {
    let pipeline = try Pipeline(
        configuration: PipelineConfiguration(outputDirectory: outputFolder),
        onResult: collector.add)
    // The three rows name the same source, so the pipeline decodes it once.
    pipeline.submit(request(row: 1, box: "256x256", fit: .inside, format: .jpeg))
    pipeline.submit(request(row: 2, box: "200x200", fit: .cover, format: .webp))
    pipeline.submit(request(row: 3, box: "300x100", fit: .contain, format: .png))
    pipeline.waitUntilFinished()
    print("decodes: \(pipeline.decodeCount)")
} catch {
    FileHandle.standardError.write(Data("LibraryExample: \(error)\n".utf8))
    exit(3)
}
for result in collector.all.sorted(by: { $0.row < $1.row }) {
    let outcome = result.error?.message ?? "\(result.out ?? "") \(result.width ?? 0)x\(result.height ?? 0)"
    print("\(result.id): \(result.status.rawValue) \(outcome)")
}
