import Foundation

/// What a worker does before it says it is ready: one unit over two tiny images of its own, so
/// that the first real unit does not pay, against `--timeout`, what libvips and the codecs do
/// once per process (operation classes looked up, codec libraries set up, vector programs
/// compiled for the resampling kernels). Without it, a fresh worker's first row of a small
/// image could time out where a warm process's would not (ImageLimitsTests' 0.1 s limit did).
enum WorkerWarmUp {
    /// A 16×16 gradient as a baseline JPEG and as a PNG, made with libvips for this purpose.
    private static let jpeg = "/9j/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5aYVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAARCAAQABADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDkLGHpxXR2MPTis6xh6cV0VjD04rrxVUmKP//Z"
    private static let png = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAIAAACQkWg2AAAACXBIWXMAAAPoAAAD6AG1e1JrAAAArUlEQVQoz5XMkQKDABSG0R+CYDAIgiAYBMEgGAwGQTAYBEEwCAaDIBgEHwyCYBAEg0EwCIIecHuFex7gSMJ12W7xfcKQKGK/53DgdCLLuFwoCq5XbjfqmscDOQ6bDZ5HELDbEcckCccjacr5TJ5TllQV9ztNQ9siU/8nU/98IlPfdcjU9z0y9a8XMvXDgEz9OCJT/34jU//5IFM/TcjUf7/I1M8zMvXLgkz9uvIDEI00EPHAchYAAAAASUVORK5CYII="

    /// Runs the warm-up unit with `decoder`, making placeholders when the run's units will
    /// (`makesPlaceholders`); its outputs are thrown away, and nothing it does can fail the worker.
    static func run(decoder: SourceDecoder, makesPlaceholders: Bool) {
        var template = Array((NSTemporaryDirectory() + "/thumbgen-warm-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { return }
        let folder = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let discard = open("/dev/null", O_RDWR | O_CLOEXEC)
        guard discard >= 0 else { return }
        defer { close(discard) }
        let sink = WorkerFrameWriter(descriptor: discard)
        let silence = WorkerFrameReader(descriptor: discard)
        var spec = ThumbnailSpec()
        spec.box = TargetBox(width: 8, height: 8)
        var cover = spec
        cover.fit = .cover
        let units: [(String, String, [(String, ThumbnailSpec)])] = [
            ("warm.jpg", jpeg, [("a.jpg", spec), ("b.webp", cover), ("c.png", spec)]),
            ("warm.png", png, [("d.png", spec), ("e.jpg", cover)]),
        ]
        for (name, base64, rows) in units {
            let path = folder + "/" + name
            guard let bytes = Data(base64Encoded: base64), FileManager.default.createFile(atPath: path, contents: bytes)
            else { continue }
            let unit = WorkerProtocol.Unit(path: path, rows: rows.enumerated().map { index, row in
                WorkerProtocol.UnitRow(index: index, outTemplate: row.0, recipe: index, spec: row.1)
            })
            UnitRun(unit: unit, decoder: decoder, makesPlaceholders: makesPlaceholders, askAbove: .max, fault: nil,
                    input: silence, output: sink).run()
        }
    }
}
