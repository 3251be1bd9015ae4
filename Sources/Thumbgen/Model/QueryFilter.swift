import Foundation

/// Which query parameters are not part of a URL source's identity in the cache
/// (`--ignore-query`): a presigned URL's signature changes on every run, its image does not.
///
/// Names match case-insensitively. `aws` stands for the presigned parameters of S3
/// (`X-Amz-*`), CloudFront (`Expires`, `Signature`, `Key-Pair-Id`, `Policy`) and Google Cloud
/// Storage (`X-Goog-*`). The request always uses the whole URL; only the cache's name for it
/// changes.
public struct QueryFilter: Sendable, Equatable {
    /// The names given, lowercased (`aws` kept as such).
    public let names: Set<String>

    /// The word that stands for the presigned parameters of S3, CloudFront and GCS.
    public static let presigned = "aws"
    /// The prefixes `aws` drops.
    static let presignedPrefixes = ["x-amz-", "x-goog-"]
    /// The names `aws` drops.
    static let presignedNames: Set<String> = ["expires", "signature", "key-pair-id", "policy"]

    /// A filter dropping `names` (case-insensitive); throws for an empty or malformed name.
    public init(names: [String]) throws(QueryFilterError) {
        var kept = Set<String>()
        for raw in names {
            let name = raw.trimmingWhitespaceOnly.lowercased()
            guard !name.isEmpty else { throw QueryFilterError(reason: "an empty parameter name") }
            guard !name.contains(where: { "=&?#".contains($0) || $0 == " " }) else {
                throw QueryFilterError(reason: "'\(raw)' is not a parameter name (no =, &, ?, # or spaces)")
            }
            kept.insert(name)
        }
        self.names = kept
    }

    /// Whether the parameter called `name` (as written, percent-decoded) is dropped.
    public func drops(_ name: String) -> Bool {
        let lowered = name.lowercased()
        if names.contains(lowered) { return true }
        guard names.contains(Self.presigned) else { return false }
        return Self.presignedNames.contains(lowered) || Self.presignedPrefixes.contains { lowered.hasPrefix($0) }
    }

    /// The URL text `url` is known by in the cache, and the names of the parameters dropped
    /// from it (as written, in order); nil when none is dropped (the identity is the URL).
    /// The rest of the text stays byte for byte, its other parameters in their order.
    public func identity(of url: String) -> (identity: String, dropped: [String])? {
        guard let question = url.firstIndex(of: "?") else { return nil }
        let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
        let query = url[url.index(after: question)..<fragmentStart]
        var kept: [Substring] = [], dropped: [String] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let rawName = pair.prefix { $0 != "=" }
            let name = String(rawName).removingPercentEncodingOrSelf
            if !pair.isEmpty && drops(name) { dropped.append(name) } else { kept.append(pair) }
        }
        guard !dropped.isEmpty else { return nil }
        let head = url[..<question]
        let tail = url[fragmentStart...]
        return (kept.isEmpty ? String(head + tail) : head + "?" + kept.joined(separator: "&") + tail, dropped)
    }
}

/// Why an `--ignore-query` list cannot be used.
public struct QueryFilterError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with it.
    public var reason: String
    /// The message, naming the flag.
    public var description: String { "--ignore-query: \(reason)" }
}

private extension String {
    /// `self` percent-decoded, or as it is when it does not decode.
    var removingPercentEncodingOrSelf: String {
        guard contains("%") || contains("+") else { return self }
        let spaced = replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    /// Without leading and trailing spaces and tabs (Model cannot use Reading's trimming).
    var trimmingWhitespaceOnly: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
