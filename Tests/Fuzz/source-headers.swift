// sources: Fetching/SourceHeadersFile.swift Fetching/SourceCredentials.swift Fetching/NetrcHosts.swift Fetching/S3Access.swift
import Foundation

// SourceCredentials.swift holds `HostHeader`; NetrcHosts.swift and S3Access.swift are there
// because `SourceCredentials` names them. None of their reading runs here.

/// The `--source-headers` reader over any text: it must give header lines or an error naming a
/// line, never trap. A header taken must have a host without scheme, path or wildcard, a port
/// (if any) from 1 to 65535, a token for its name, a value, and no line break or NUL anywhere
/// in what is sent (which would add a header of the file's choosing to the request).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSourceHeaders(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let lines: [HostHeader]
    do {
        lines = try SourceHeadersFile.parse(text, path: "fuzz")
    } catch {
        precondition(error.line.map { $0 >= 1 } ?? false, "an error without its line")
        return 0
    }
    let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~").union(.alphanumerics)
    for header in lines {
        precondition(!header.host.isEmpty && !header.host.contains("/") && !header.host.contains("*"), "a bad host")
        precondition(header.port.map { (1...65535).contains($0) } ?? true, "a bad port")
        precondition(!header.name.isEmpty && header.name.unicodeScalars.allSatisfy { $0.isASCII && token.contains($0) },
                     "a bad header name")
        precondition(!header.line.unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" },
                     "a line break or NUL in a header: \(header.line.debugDescription)")
    }
    return 0
}
