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
        let missing = report.missing(allowPrivateNetwork: fetch.allowPrivateNetwork)
        if !missing.isEmpty {
            printError("missing: " + missing.joined(separator: ", "))
            throw ExitCode.failure
        }
    }
}
