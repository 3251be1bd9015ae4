import Foundation
@testable import Thumbgen

/// Reads manifests given as text, through a real file, the way the CLI does.
enum ManifestText {
    /// Every entry of the manifest `bytes`, saved as `name`; throws the manifest-wide error.
    static func entries(_ bytes: Data, name: String = "manifest.csv", jsonLines: Bool? = nil)
        throws -> [Result<ManifestRecord, RowError>]
    {
        let folder = try TemporaryDirectory("manifest")
        let url = try folder.write(bytes, to: name)
        let reader = try ManifestReader(path: url.path, jsonLines: jsonLines)
        var entries: [Result<ManifestRecord, RowError>] = []
        while let entry = try reader.next() { entries.append(entry) }
        return entries
    }

    /// As above, for UTF-8 text.
    static func entries(_ text: String, name: String = "manifest.csv", jsonLines: Bool? = nil)
        throws -> [Result<ManifestRecord, RowError>]
    {
        try entries(Data(text.utf8), name: name, jsonLines: jsonLines)
    }

    /// The records, failing the call if any entry is a row error.
    static func records(_ text: String, name: String = "manifest.csv") throws -> [ManifestRecord] {
        try entries(text, name: name).map { try $0.get() }
    }

    /// The manifest-wide error reading `text` raises, if any.
    static func manifestError(_ text: String, name: String = "manifest.csv") -> ManifestError? {
        do {
            _ = try entries(text, name: name)
            return nil
        } catch let error as ManifestError {
            return error
        } catch {
            return nil
        }
    }
}

extension Result {
    /// The success value, or nil.
    var value: Success? { if case .success(let v) = self { v } else { nil } }
    /// The failure, or nil.
    var failureValue: Failure? { if case .failure(let e) = self { e } else { nil } }
}
