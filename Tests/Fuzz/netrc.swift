// sources: Fetching/NetrcHosts.swift
import Foundation

/// The netrc reader over any text, as a user's `~/.netrc` may hold it: which hosts get
/// credentials. Every host named must be one token as libcurl reads it (space, tab, CR, LF,
/// vertical tab and form feed separate tokens), and covered.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNetrc(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    let hosts = NetrcHosts(text: text, path: "fuzz")
    for machine in hosts.machines {
        precondition(!machine.isEmpty, "an empty host")
        precondition(!machine.unicodeScalars.contains(where: { " \t\n\r\u{0B}\u{0C}".unicodeScalars.contains($0) }),
                     "a host with white space in it: \(machine.debugDescription)")
        precondition(hosts.covers(machine), "a host named but not covered")
    }
    return 0
}
