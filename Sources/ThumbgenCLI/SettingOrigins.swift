import Foundation
import Thumbgen

/// Where each of a row's settings came from, for `thumbgen explain`: the row's own cell, its
/// preset, a flag on the command line, a `thumbgen.toml` key (with `--preset`'s table among
/// them), else the default (not listed).
struct SettingOrigins {
    /// The command line as parsed: the one given, with the file's settings added.
    let arguments: [String]
    /// The flags the file added, by long name: `FILE:LINE: [TABLE] KEY`.
    let fromFile: [String: String]
    /// Each preset's table line in the file, and the file.
    let presetLines: [String: Int]
    let file: String?
    /// The command's flags, to tell a switch (`--upscale`) from an option with a value.
    let flags = CommandFlags(ExplainCommand.self)

    /// The columns a row's output depends on that a flag may also give.
    private static let columns: [ManifestColumn] = ManifestColumn.allCases.filter {
        ![.src, .out, .id, .dir, .preset, .sourceKey].contains($0)
    }

    /// The settings `raw` (the row as written) ends up with once its preset fills it
    /// (`expanded`), each with where it came from; defaults left out.
    func settings(raw: ManifestRecord, expanded: ManifestRecord) -> [Explanation.Setting] {
        var found: [Explanation.Setting] = []
        for column in Self.columns {
            let name = column.rawValue
            if let value = raw.values[column] {
                found.append(.init(name: name, value: value, from: "the row"))
            } else if let value = expanded.values[column], let preset = raw.values[.preset] {
                let place = presetLines[preset].map { " (\(file ?? ""):\($0))" } ?? ""
                found.append(.init(name: name, value: value, from: "the row's preset \(preset)\(place)"))
            } else {
                let flag = "--" + name.replacingOccurrences(of: "_", with: "-")
                let value: String
                if flags.flag(for: String(flag.dropFirst(2)))?.isFlag == true {
                    guard arguments.prefix(while: { $0 != "--" }).contains(flag) else { continue }
                    value = "true"
                } else {
                    guard let given = ConfigArguments.value(of: flag, in: arguments) else { continue }
                    value = given
                }
                found.append(.init(name: name, value: value, from: fromFile[flag] ?? "\(flag) on the command line"))
            }
        }
        return found
    }
}
