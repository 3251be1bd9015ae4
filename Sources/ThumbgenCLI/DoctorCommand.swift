import ArgumentParser
import Foundation
import Thumbgen

/// `thumbgen doctor`: versions, codecs and limits, for a bug report or a CI health check.
struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Show the versions, image formats and limits thumbgen runs with.",
        discussion: """
            Lists the thumbgen, libvips and libcurl versions; the libvips loader of each input \
            format, whether libvips has it and whether it is enabled; the other loaders libvips \
            has, blocked unless --enable-loader names them; the libvips saver of each output \
            format; whether libcurl can install the download safeguards (the address guard that \
            refuses non-public addresses, and the restriction to http and https); and the limits \
            the same flags would set for a run. Exits 1, naming what is missing, when a loader, \
            saver or safeguard thumbgen needs is absent (the address guard is not needed with \
            --allow-private-network), so that CI can use it as a health check.
            """)

    @Flag(help: "Print one JSON object (keys: thumbgen, libvips, libcurl, loaders, savers, limits) instead of text.")
    var json = false

    @OptionGroup(title: "HTTP sources")
    var fetch: FetchOptions

    @OptionGroup(title: "Image limits")
    var limits: LimitOptions

    func run() throws {
        let capabilities: VipsCapabilities
        do {
            // Started as a run would start it, so that --enable-loader shows in the table.
            try VipsRuntime.start(extraLoaders: limits.extraLoaders)
            // Every loader this libvips has, the ones in modules a run does not load included.
            try VipsRuntime.loadAllModules()
            capabilities = try VipsCapabilities.current()
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
        let report = DoctorReport(vips: capabilities, curl: .current, limits: limits.limits(fetch: fetch))
        print(json ? try report.json() : report.text)
        let missing = capabilities.missing
            + report.curl.missingSafeguards(allowPrivateNetwork: fetch.allowPrivateNetwork)
        if !missing.isEmpty {
            printError("missing: " + missing.joined(separator: ", "))
            throw ExitCode.failure
        }
    }
}

/// What `thumbgen doctor` prints, as text for people or as JSON for scripts.
struct DoctorReport: Encodable {
    /// The loaders and savers, as libvips reports them.
    var vips: VipsCapabilities
    /// The libcurl downloads use.
    var curl: CurlVersion
    /// The limits the command's flags set.
    var limits: ImagingLimits

    private enum Key: String, CodingKey {
        case thumbgen, libvips, libcurl, loaders, savers, limits
        case version, ssl, http2, zlib, format, name, available, enabled
        case addressGuard = "address_guard", protocolRestriction = "protocol_restriction"
        case av1Encoder = "av1_encoder", maxPixels = "max_pixels", maxFrames = "max_frames"
        case maxOutputSize = "max_output_size", maxBytes = "max_bytes"
        case timeoutSeconds = "timeout_seconds", decodeStrictness = "decode_strictness"
    }

    /// The keys `--json` documents; `format` is absent on loaders thumbgen does not need,
    /// `av1_encoder` present on the AVIF saver only, `ssl` null when libcurl has no TLS.
    func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: Key.self)
        try top.encode(ThumbgenVersion.current, forKey: .thumbgen)
        try top.encode(vips.version, forKey: .libvips)
        var libcurl = top.nestedContainer(keyedBy: Key.self, forKey: .libcurl)
        try libcurl.encode(curl.version, forKey: .version)
        try libcurl.encode(curl.ssl, forKey: .ssl)
        try libcurl.encode(curl.http2, forKey: .http2)
        try libcurl.encode(curl.zlib, forKey: .zlib)
        try libcurl.encode(curl.addressGuard, forKey: .addressGuard)
        try libcurl.encode(curl.protocolRestriction, forKey: .protocolRestriction)
        var loaders = top.nestedUnkeyedContainer(forKey: .loaders)
        for loader in vips.loaders {
            var entry = loaders.nestedContainer(keyedBy: Key.self)
            try entry.encodeIfPresent(loader.format?.rawValue, forKey: .format)
            try entry.encode(loader.name, forKey: .name)
            try entry.encode(loader.available, forKey: .available)
            try entry.encode(loader.enabled, forKey: .enabled)
        }
        var savers = top.nestedUnkeyedContainer(forKey: .savers)
        for saver in vips.savers {
            var entry = savers.nestedContainer(keyedBy: Key.self)
            try entry.encode(saver.format.rawValue, forKey: .format)
            try entry.encode(saver.name, forKey: .name)
            try entry.encode(saver.available, forKey: .available)
            try entry.encodeIfPresent(saver.av1Encoder, forKey: .av1Encoder)
        }
        var bounds = top.nestedContainer(keyedBy: Key.self, forKey: .limits)
        try bounds.encode(limits.maxPixels, forKey: .maxPixels)
        try bounds.encode(limits.maxFrames, forKey: .maxFrames)
        try bounds.encode(limits.maxOutputDimension, forKey: .maxOutputSize)
        try bounds.encode(limits.maxInputBytes, forKey: .maxBytes)
        try bounds.encode(limits.seconds, forKey: .timeoutSeconds)
        try bounds.encode(limits.strictness.rawValue, forKey: .decodeStrictness)
    }

    /// The JSON object, keys sorted, for `doctor --json`.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Versions, then one aligned table per section, each under a heading.
    var text: String {
        let tls = curl.ssl.map { "TLS \($0)" } ?? "no TLS"
        var lines = Self.table([
            ["thumbgen", ThumbgenVersion.current],
            ["libvips", vips.version],
            ["libcurl", "\(curl.version), \(tls), HTTP/2 \(Self.yes(curl.http2)), zlib \(Self.yes(curl.zlib))"],
        ], indent: "")
        let inputs = vips.loaders.compactMap { loader in
            loader.format.map { [$0.rawValue, loader.name, Self.yes(loader.available), Self.yes(loader.enabled)] }
        }
        lines += ["", "input formats:"] + Self.table([["format", "loader", "available", "enabled"]] + inputs)
        let others = vips.loaders.filter { $0.format == nil }.map { [$0.name, $0.enabled ? "enabled" : "blocked"] }
        lines += ["", "other loaders (blocked unless --enable-loader names them):"]
            + (others.isEmpty ? ["  none"] : Self.table([["loader", "state"]] + others))
        let outputs = vips.savers.map { saver in
            let av1 = saver.av1Encoder.map { ", AV1 encoder \(Self.yes($0))" } ?? ""
            return [saver.format.rawValue, saver.name, Self.yes(saver.available) + av1]
        }
        lines += ["", "output formats:"] + Self.table([["format", "saver", "available"]] + outputs)
        lines += ["", "download safeguards (libcurl):"] + Self.table([
            ["address guard", Self.yes(curl.addressGuard) + " (refuses non-public addresses; CURLOPT_PREREQFUNCTION, 7.80)"],
            ["protocol restriction", Self.yes(curl.protocolRestriction) + " (http and https only, redirects included)"],
        ])
        let mebibytes = String(format: "%.1f MiB", Double(limits.maxInputBytes) / 1_048_576)
        lines += ["", "limits:"] + Self.table([
            ["max pixels", String(limits.maxPixels)],
            ["max frames", String(limits.maxFrames)],
            ["max output size", String(limits.maxOutputDimension)],
            ["max bytes", "\(limits.maxInputBytes) (\(mebibytes))"],
            ["timeout", String(format: "%g s", limits.seconds)],
            ["decode strictness", limits.strictness.rawValue],
        ])
        return lines.joined(separator: "\n")
    }

    private static func yes(_ value: Bool) -> String { value ? "yes" : "no" }

    /// Rows with every column padded to its widest cell, two spaces apart.
    private static func table(_ rows: [[String]], indent: String = "  ") -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in
            rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            // The last cell is not padded, so that no line ends in spaces.
            let cells = row.enumerated().map { column, cell in
                column == row.count - 1
                    ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            return indent + cells.joined(separator: "  ")
        }
    }
}
