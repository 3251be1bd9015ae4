import Foundation
import TOMLKit

/// `thumbgen.toml`: settings that would otherwise be flags, read with TOMLKit (TOML 1.0) and
/// flattened into the text each flag would be given, with the line each key stands on.
///
/// Keys at the top level apply to every command that has the flag; a table named after a
/// command (`[render]`, `[site]`, `[warm]`, …) to that command alone; `[presets.NAME]` tables
/// are bags of flags a `--preset NAME` applies.
struct ConfigFile {
    /// One key's value as a flag would take it: a string as written, a number in decimal,
    /// `true`/`false`, an array's items joined with commas.
    struct Entry: Equatable {
        var key: String
        var value: String
        /// The line the key stands on, from 1.
        var line: Int
        /// Whether the value was a TOML boolean.
        var isBoolean: Bool
    }

    /// The file's path as found or given.
    let path: String
    /// Top-level entries.
    var global: [Entry] = []
    /// Entries by command table.
    var sections: [String: [Entry]] = [:]
    /// Entries by preset name, and the line of each preset's table.
    var presets: [String: [Entry]] = [:]
    var presetLines: [String: Int] = [:]
    /// `[site.rules]`: a glob over page paths and the preset its images get, in the file's order.
    var siteRules: [(pattern: String, preset: String, line: Int)] = []

    /// The name thumbgen looks for.
    static let name = "thumbgen.toml"

    /// The nearest `thumbgen.toml` in `directory` or a folder above it, as Cargo finds its
    /// manifest; nil when there is none.
    static func find(from directory: String) -> String? {
        var folder = URL(fileURLWithPath: directory).standardizedFileURL
        while true {
            let candidate = folder.appendingPathComponent(name).path
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isFolder), !isFolder.boolValue {
                return candidate
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { return nil }
            folder = parent
        }
    }

    /// Reads the file at `path`, keeping `commands`' tables (the other tables are errors).
    static func load(_ path: String, commands: Set<String>) throws(ConfigError) -> ConfigFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(file: path, line: nil, message: "cannot be read as UTF-8 text")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError(file: path, line: error.source.begin.line, message: error.description)
        } catch {
            throw ConfigError(file: path, line: nil, message: "\(error)")
        }
        let lines = ConfigKeyLines(text)
        var file = ConfigFile(path: path)
        for key in table.keys.sorted(by: { lines.line(of: [$0]) < lines.line(of: [$1]) }) {
            guard let value = table[key] else { continue }
            if let section = value.table {
                if key == "presets" {
                    for name in section.keys {
                        guard let preset = section[name]?.table else {
                            throw ConfigError(file: path, line: lines.line(of: [key, name]),
                                              message: "[presets] \(name): a preset is a table of settings ([presets.\(name)])")
                        }
                        file.presets[name] = try entries(of: preset, at: [key, name], lines: lines, path: path)
                        file.presetLines[name] = lines.line(of: [key, name])
                    }
                } else if commands.contains(key) {
                    var settings = section
                    if key == "site", let rules = section["rules"] {
                        file.siteRules = try siteRules(rules, lines: lines, path: path)
                        settings = TOMLTable()
                        for name in section.keys where name != "rules" { settings[name] = section[name] }
                    }
                    file.sections[key] = try entries(of: settings, at: [key], lines: lines, path: path)
                } else {
                    throw ConfigError(file: path, line: lines.line(of: [key]),
                                      message: "[\(key)]: no such command; the tables are \(commands.sorted().map { "[\($0)]" }.joined(separator: ", ")) and [presets.NAME]")
                }
            } else {
                file.global.append(try entry(key, value, at: [], lines: lines, path: path))
            }
        }
        for rule in file.siteRules where file.presets[rule.preset] == nil {
            throw ConfigError(file: path, line: rule.line,
                              message: "[site.rules] \"\(rule.pattern)\": no preset \(rule.preset) ([presets.\(rule.preset)])")
        }
        return file
    }

    /// `[site.rules]`: `"blog/**" = "post"` lines, in the file's order.
    private static func siteRules(_ value: TOMLValueConvertible, lines: ConfigKeyLines, path: String)
        throws(ConfigError) -> [(pattern: String, preset: String, line: Int)] {
        guard let table = value.table else {
            throw ConfigError(file: path, line: lines.line(of: ["site", "rules"]),
                              message: "[site] rules: a table of \"PATTERN\" = \"PRESET\" lines ([site.rules])")
        }
        var rules: [(pattern: String, preset: String, line: Int)] = []
        for pattern in table.keys {
            let line = lines.line(of: ["site", "rules", pattern])
            guard let preset = table[pattern]?.string, !preset.isEmpty else {
                throw ConfigError(file: path, line: line, message: "[site.rules] \"\(pattern)\": the value is a preset's name, as a string")
            }
            rules.append((pattern, preset, line))
        }
        return rules.sorted { $0.line < $1.line }
    }

    /// The entries of `table` (at `path` of tables), in the file's order.
    private static func entries(of table: TOMLTable, at tables: [String], lines: ConfigKeyLines,
                                path: String) throws(ConfigError) -> [Entry] {
        var found: [Entry] = []
        for key in table.keys {
            guard let value = table[key] else { continue }
            found.append(try entry(key, value, at: tables, lines: lines, path: path))
        }
        return found.sorted { $0.line < $1.line }
    }

    private static func entry(_ key: String, _ value: TOMLValueConvertible, at tables: [String],
                              lines: ConfigKeyLines, path: String) throws(ConfigError) -> Entry {
        let line = lines.line(of: tables + [key])
        let place = tables.isEmpty ? key : "[\(tables.joined(separator: "."))] \(key)"
        func text(_ value: TOMLValueConvertible) throws(ConfigError) -> (String, Bool) {
            switch value.type {
            case .string: return (value.string ?? "", false)
            case .int: return (String(value.int ?? 0), false)
            case .double: return (String(value.double ?? 0), false)
            case .bool: return ((value.bool ?? false) ? "true" : "false", true)
            default:
                throw ConfigError(file: path, line: line, message: "\(place): a \(value.type) is not a setting's value (a string, number, boolean or array of them)")
            }
        }
        if let array = value.array {
            var items: [String] = []
            for item in array { items.append(try text(item).0) }
            return Entry(key: key, value: items.joined(separator: ","), line: line, isBoolean: false)
        }
        let (string, isBoolean) = try text(value)
        return Entry(key: key, value: string, line: line, isBoolean: isBoolean)
    }
}

/// A `thumbgen.toml` that cannot be used: exit status 2, naming the file and the line.
struct ConfigError: Error, CustomStringConvertible {
    var file: String
    var line: Int?
    var message: String

    var description: String {
        "\(file)\(line.map { ":\($0)" } ?? ""): \(message)"
    }
}
