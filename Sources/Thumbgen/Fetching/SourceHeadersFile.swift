import Foundation

/// Reads a `--source-headers` file: one `HOST[:PORT] Header-Name: value` a line, `#` comments
/// and blank lines skipped. An error names the file and the line, never the value.
public enum SourceHeadersFile {
    /// The lines of the file at `path`; throws when it cannot be read or a line is malformed.
    public static func read(_ path: String) throws(SourceHeadersError) -> [HostHeader] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SourceHeadersError(path: path, line: nil, reason: "cannot be read (\(Self.reason(error)))")
        }
        return try parse(text, path: path)
    }

    /// The lines of `text`, read from `path` (for messages).
    public static func parse(_ text: String, path: String) throws(SourceHeadersError) -> [HostHeader] {
        var found: [HostHeader] = []
        // "\r\n" is one Character: split at it too, or a CRLF file is one line whose first
        // header's value carries every later line, to the first line's host.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (number, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ reason: String) -> SourceHeadersError {
                SourceHeadersError(path: path, line: number + 1, reason: reason)
            }
            guard let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) else {
                throw fail("expected HOST[:PORT] Header-Name: value")
            }
            let origin = line[..<space].lowercased()
            let header = line[space...].trimmingCharacters(in: .whitespaces)
            var host = origin, port: Int?
            if let colon = origin.lastIndex(of: ":"), !origin.hasSuffix("]") {
                guard let number = Int(origin[origin.index(after: colon)...]), (1...65535).contains(number) else {
                    throw fail("'\(origin)' has a port that is not a number from 1 to 65535")
                }
                host = String(origin[..<colon])
                port = number
            }
            host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))  // an IPv6 address, as URL.host gives it
            guard !host.isEmpty, !host.contains("/"), !host.contains("*") else {
                throw fail("'\(origin)' is not a host name (no scheme, path or wildcard: HOST or HOST:PORT)")
            }
            guard let colon = header.firstIndex(of: ":") else { throw fail("expected Header-Name: value after the host") }
            let name = header[..<colon]
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
            guard !name.isEmpty, name.unicodeScalars.allSatisfy({ $0.isASCII && token.contains($0) }) else {
                throw fail("'\(name)' is not a header name")
            }
            guard !value.isEmpty else { throw fail("the header \(name) has no value") }
            // A CR or NUL in a value would end the header there and start one of the file's own.
            guard !value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\0" }) else {
                throw fail("the header \(name) has a carriage return or NUL in its value")
            }
            found.append(HostHeader(host: host, port: port, line: "\(name): \(value)"))
        }
        return found
    }

    private static func reason(_ error: Error) -> String {
        let code = (error as NSError).code
        if (error as NSError).domain == NSCocoaErrorDomain {
            switch code {
            case NSFileReadNoSuchFileError: return "no such file"
            case NSFileReadNoPermissionError: return "permission denied"
            case NSFileReadInapplicableStringEncodingError: return "not UTF-8 text"
            default: break
            }
        }
        return error.localizedDescription
    }
}

/// Why a `--source-headers` file cannot be used: the file, the line (1-based) and what is wrong.
public struct SourceHeadersError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The line at fault, counted from 1; nil when the file as a whole is.
    public var line: Int?
    /// What is wrong (never the header's value).
    public var reason: String
    /// The message, naming the flag, the file and the line.
    public var description: String {
        "--source-headers \(path)" + (line.map { ", line \($0)" } ?? "") + ": " + reason
    }
}
