// sources: Fetching/HTTPDate.swift Caching/HTTPFreshness.swift
import Foundation

/// HTTP dates and the freshness headers (`Cache-Control`, `Expires`, `Date`), from any text.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPHeaders(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeRawBufferPointer(start: start, count: count), as: UTF8.self)
    _ = HTTPDate.parse(text)
    let parts = text.split(separator: "\n", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
    let freshness = HTTPFreshness(cacheControl: parts.first, expires: parts.count > 1 ? parts[1] : nil,
                                  date: parts.count > 2 ? parts[2] : nil, now: 1_700_000_000)
    precondition(freshness.freshFor >= 0, "negative lifetime")
    return 0
}
