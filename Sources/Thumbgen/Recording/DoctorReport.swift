import Foundation

/// What `thumbgen doctor` prints, as text for people or as JSON for scripts.
public struct DoctorReport: Encodable {
    /// The loaders and savers, as libvips reports them.
    public var vips: VipsCapabilities
    /// The libcurl downloads use.
    public var curl: CurlVersion
    /// The limits the command's flags set.
    public var limits: ImagingLimits

    /// A report of `vips` and `curl` with the limits a run's flags set.
    public init(vips: VipsCapabilities, curl: CurlVersion, limits: ImagingLimits) {
        self.vips = vips
        self.curl = curl
        self.limits = limits
    }

    /// What a run needs and lacks: a loader, a saver or a download safeguard (the address guard
    /// is not needed when `allowPrivateNetwork`); `doctor` exits 1 when this is not empty.
    public func missing(allowPrivateNetwork: Bool) -> [String] {
        vips.missing + curl.missingSafeguards(allowPrivateNetwork: allowPrivateNetwork)
    }

    private enum Key: String, CodingKey {
        case thumbgen, libvips, libcurl, loaders, savers, limits
        case nativeResample = "native_resample", resampler
        case version, ssl, http2, zlib, format, name, available, enabled
        case addressGuard = "address_guard", protocolRestriction = "protocol_restriction"
        case av1Encoder = "av1_encoder", maxPixels = "max_pixels", maxFrames = "max_frames"
        case maxOutputSize = "max_output_size", maxBytes = "max_bytes"
        case timeoutSeconds = "timeout_seconds", decodeStrictness = "decode_strictness"
    }

    /// The keys `--json` documents; `format` is absent on loaders thumbgen does not need,
    /// `av1_encoder` present on the AVIF saver only, `ssl` null when libcurl has no TLS.
    public func encode(to encoder: any Encoder) throws {
        var top = encoder.container(keyedBy: Key.self)
        try top.encode(ThumbgenVersion.current, forKey: .thumbgen)
        try top.encode(vips.version, forKey: .libvips)
        try top.encode(vips.nativeResample, forKey: .nativeResample)
        try top.encode(vips.resampler, forKey: .resampler)
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
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// Versions, then one aligned table per section, each under a heading.
    public var text: String {
        let tls = curl.ssl.map { "TLS \($0)" } ?? "no TLS"
        var lines = Self.table([
            ["thumbgen", ThumbgenVersion.current],
            ["libvips", vips.version],
            ["C resampler", vips.resampler],
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
            ["address guard", Self.yes(curl.addressGuard)
                + " (refuses non-public addresses; \(CurlOption.prereqFunction.name), 7.80)"],
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
