import Foundation

/// The `out` column: a path under `--out` with placeholders filled in once the output is known.
///
/// Placeholders: `{name}` (source file stem), `{w}`, `{h}` (the output's actual size), `{fit}`,
/// `{ext}`, `{hash8}` (first 8 hex digits of the output's SHA-256), `{row}`, and `{dir}` (the
/// row's `dir` cell: the source's folder relative to a walked root), which `RowParser` fills in
/// before the template is checked (`filling(directory:in:)`), so that nothing after it sees it.
public enum OutputPathTemplate {
    /// The placeholders a template may use.
    public static let placeholders = ["dir", "name", "w", "h", "fit", "ext", "hash8", "row"]

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

    /// `template` with `{dir}` replaced by `directory`, a relative folder (`.` and empty
    /// components dropped); where `directory` is empty, a `/` right after `{dir}` goes too, so
    /// that `{dir}/{name}.{ext}` is `{name}.{ext}` at the root. The problem names what the
    /// folder may not hold: `..`, a leading `/`, or a brace (the template would read it).
    public static func filling(directory: String, in template: String) throws(Problem) -> String {
        guard !directory.hasPrefix("/") else { throw Problem(reason: "is absolute; it must be a folder under --out") }
        let parts = directory.split(separator: "/").filter { $0 != "." }
        guard !parts.contains("..") else { throw Problem(reason: "contains '..'; it must stay under --out") }
        guard !directory.contains(where: { $0 == "{" || $0 == "}" }) else {
            throw Problem(reason: "holds a brace, which an out template cannot; rename the folder or leave {dir} out of out")
        }
        let folder = parts.joined(separator: "/")
        return template.replacingOccurrences(of: folder.isEmpty ? "{dir}/" : "{dir}", with: folder)
            .replacingOccurrences(of: "{dir}", with: folder)
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
