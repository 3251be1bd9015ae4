import Foundation

/// The `out` column: a path under `--out` with placeholders filled in once the output is known.
///
/// Placeholders: `{name}` (source file stem), `{w}`, `{h}` (the output's actual size), `{fit}`,
/// `{ext}`, `{hash8}` (first 8 hex digits of the output's SHA-256) and `{row}`.
public enum OutputPathTemplate {
    /// The placeholders a template may use.
    public static let placeholders = ["name", "w", "h", "fit", "ext", "hash8", "row"]

    /// Why a template or a rendered path is refused.
    public struct Problem: Error, Equatable {
        /// A sentence saying what is wrong.
        public var reason: String
    }

    /// The values placeholders take for one output.
    public struct Values: Sendable {
        /// `{name}`, `{w}`, `{h}`, `{fit}` and `{ext}`.
        public var name: String, width: Int, height: Int, fit: Fit, ext: String
        /// `{hash8}` and `{row}`.
        public var hash8: String, row: Int

        /// Makes the values for one output.
        public init(name: String, width: Int, height: Int, fit: Fit, ext: String, hash8: String,
                    row: Int) {
            self.name = name; self.width = width; self.height = height; self.fit = fit
            self.ext = ext; self.hash8 = hash8; self.row = row
        }
    }

    /// Checks a template before any work: known placeholders, balanced braces, and a path that
    /// stays under the output folder.
    public static func validate(_ template: String) throws(Problem) {
        var rest = Substring(template)
        while let open = rest.firstIndex(where: { $0 == "{" || $0 == "}" }) {
            guard rest[open] == "{", let close = rest[open...].firstIndex(of: "}") else {
                throw Problem(reason: "has an unbalanced brace")
            }
            let name = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(name) else {
                throw Problem(reason: "uses the unknown placeholder {\(name)}; known: "
                              + placeholders.map { "{\($0)}" }.joined(separator: " "))
            }
            rest = rest[rest.index(after: close)...]
        }
        try checkConfined(template)
    }

    /// Fills in the placeholders and checks that the result stays under the output folder.
    public static func render(_ template: String, _ v: Values) throws(Problem) -> String {
        let values: [Substring: String] = [
            "name": v.name, "w": String(v.width), "h": String(v.height), "fit": v.fit.rawValue,
            "ext": v.ext, "hash8": v.hash8, "row": String(v.row),
        ]
        // One pass over the template, so that a value holding "{row}" stays as it is.
        var path = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            path += rest[..<open]
            let key = rest[rest.index(after: open)..<close]
            path += values[key] ?? String(rest[open...close])
            rest = rest[rest.index(after: close)...]
        }
        path += rest
        try checkConfined(path)
        return path
    }

    /// Refuses absolute paths, `..` components and empty names: an output never escapes `--out`.
    static func checkConfined(_ path: String) throws(Problem) {
        guard !path.isEmpty else { throw Problem(reason: "is empty") }
        guard !path.hasPrefix("/") && !path.hasPrefix("~") else {
            throw Problem(reason: "is absolute; it must be a path under --out")
        }
        // On the bytes: this runs for every row, twice on a warm one.
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard !components.contains(where: { $0.elementsEqual("..".utf8) }) else {
            throw Problem(reason: "contains '..'; it must stay under --out")
        }
        guard let last = components.last, !last.isEmpty, !last.elementsEqual(".".utf8) else {
            throw Problem(reason: "does not end in a file name")
        }
        guard !path.utf8.contains(0) else { throw Problem(reason: "contains a NUL byte") }
    }
}
