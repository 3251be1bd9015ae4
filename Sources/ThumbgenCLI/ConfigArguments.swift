import ArgumentParser
import Foundation
import Synchronization

/// A command line with `thumbgen.toml`'s settings and the `--preset` given added as the flags
/// they stand for, before the parser reads it: every value then goes through its flag's own
/// parser and checks.
///
/// Precedence: a flag on the command line > the `--preset NAME` > the command's table >
/// the file's top level > the flag's default. A setting is added only when the command line
/// does not give its flag (by any of its names), so a list flag is replaced, never merged.
struct ConfigArguments {
    /// The arguments to parse (without the program's name).
    var arguments: [String]
    /// Where each added flag came from, by its long name (`--fit`): `FILE:LINE: [TABLE] KEY`.
    var origins: [String: String] = [:]
    /// The file read, if any.
    var file: String?

    /// What of the file read a command needs besides flags; set once, by `main`, before any
    /// command runs.
    struct Loaded {
        /// The file's path.
        var file: String?
        /// Its presets, for rows that name one (`PresetExpansion`) and `thumbgen site`'s images.
        var presets: [String: [(key: String, value: String)]] = [:]
        /// Its `[site.rules]`, in the file's order.
        var siteRules: [(pattern: String, preset: String)] = []
        /// The line of each preset's table.
        var presetLines: [String: Int] = [:]
        /// The flags it added to the command line, by long name: `FILE:LINE: [TABLE] KEY`.
        var origins: [String: String] = [:]
        /// The command line with them.
        var arguments: [String] = []
    }

    /// The file read, if any.
    static let loaded = Mutex(Loaded())

    /// The commands whose tables a file may have, and their flags.
    static let commands: [String: any ParsableCommand.Type] = [
        "render": RenderCommand.self, "site": SiteCommand.self, "warm": WarmCommand.self,
        "manifest": ManifestCommand.self, "explain": ExplainCommand.self,
    ]

    /// `arguments` with the settings of the `thumbgen.toml` that applies (`--config FILE`,
    /// else the nearest from `directory` up; none with `--no-config`) added.
    static func apply(to arguments: [String], directory: String) throws(ConfigError) -> ConfigArguments {
        var result = ConfigArguments(arguments: arguments)
        // Help, version and completion requests are about the program, not a run.
        if arguments.isEmpty || arguments[0] == "help" || arguments.contains(where: { ["-h", "--help", "--version"].contains($0)
            || $0.hasPrefix("--generate-completion") || $0.hasPrefix("--experimental") }) {
            return result
        }
        let named = commands[arguments[0]] != nil
        let command = named ? arguments[0] : "render"
        let rest = named ? Array(arguments.dropFirst()) : arguments
        if rest.contains("--no-config") { return result }
        let given = value(of: "--config", in: rest)
        guard let path = given ?? ConfigFile.find(from: directory) else {
            if let preset = value(of: "--preset", in: rest) {
                throw ConfigError(file: "--preset", line: nil, message: "\(preset): no \(ConfigFile.name) here or in a folder above to define it")
            }
            return result
        }
        if let given, !FileManager.default.fileExists(atPath: given) {
            throw ConfigError(file: given, line: nil, message: "no such file (--config)")
        }
        let file = try ConfigFile.load(path, commands: Set(commands.keys))
        result.file = path
        loaded.withLock { loaded in
            loaded = Loaded(file: path, presets: file.presets.mapValues { $0.map { (key: $0.key, value: $0.value) } },
                            siteRules: file.siteRules.map { (pattern: $0.pattern, preset: $0.preset) },
                            presetLines: file.presetLines)
        }
        // A command's flags come from its parser's description of itself, a few milliseconds
        // each: only the running command's are read on the way a valid file takes; the others'
        // only for a key the running command lacks.
        let flags = CommandFlags(commands[command]!)
        var others: [CommandFlags]?
        func anyCommandHas(_ key: String) -> Bool {
            if flags.flag(for: key) != nil { return true }
            let described = others ?? commands.filter { $0.key != command }.map { CommandFlags($0.value) }
            others = described
            return described.contains { $0.flag(for: key) != nil }
        }
        var chosen: [String: (ConfigFile.Entry, String)] = [:]
        // Top-level keys: for the commands that have them; a key no command has is a mistake.
        for entry in file.global {
            guard anyCommandHas(entry.key) else {
                throw unknown(entry, place: entry.key, in: path, known: flags)
            }
            if flags.flag(for: entry.key) != nil { chosen[entry.key] = (entry, entry.key) }
        }
        // `explain` explains what `render` would do: the render table's settings it has apply.
        if command == "explain" {
            for entry in file.sections["render"] ?? [] where flags.flag(for: entry.key) != nil {
                chosen[entry.key] = (entry, "[render] \(entry.key)")
            }
        }
        // The running command's table; another command's is checked when that command runs.
        for entry in file.sections[command] ?? [] {
            let place = "[\(command)] \(entry.key)"
            guard flags.flag(for: entry.key) != nil else { throw unknown(entry, place: place, in: path, known: flags) }
            chosen[entry.key] = (entry, place)
        }
        // Every preset's keys, used or not: a preset may serve any command.
        for (name, entries) in file.presets {
            for entry in entries where !anyCommandHas(entry.key) {
                throw unknown(entry, place: "[presets.\(name)] \(entry.key)", in: path, known: flags)
            }
        }
        if let preset = value(of: "--preset", in: rest) {
            guard let entries = file.presets[preset] else {
                let known = file.presets.keys.sorted()
                throw ConfigError(file: path, line: nil, message: "no preset \(preset) ([presets.\(preset)])"
                                  + (known.isEmpty ? "" : "; the presets are \(known.joined(separator: ", "))"))
            }
            for entry in entries {
                let place = "[presets.\(preset)] \(entry.key)"
                guard flags.flag(for: entry.key) != nil else { throw unknown(entry, place: place, in: path, known: flags) }
                chosen[entry.key] = (entry, place)
            }
        }
        var added: [String] = []
        for (entry, place) in chosen.values.sorted(by: { $0.0.line < $1.0.line }) {
            guard let flag = flags.flag(for: entry.key), !flag.names.contains(where: { isGiven($0, in: rest) }) else { continue }
            let long = flag.longName
            if flag.isFlag {
                guard entry.isBoolean || ["true", "false"].contains(entry.value) else {
                    throw ConfigError(file: path, line: entry.line, message: "\(place): takes true or false, not \(entry.value)")
                }
                if entry.value == "true" { added.append(long) }
            } else {
                added += [long, pathKeys.contains(String(long.dropFirst(2))) ? resolved(entry.value, in: path) : entry.value]
            }
            result.origins[long] = "\(path):\(entry.line): \(place)"
        }
        result.arguments = [command] + added + rest
        loaded.withLock { [result] in
            $0.origins = result.origins
            $0.arguments = result.arguments
        }
        return result
    }

    /// The flags whose values are paths: relative ones in the file are relative to its folder,
    /// wherever thumbgen runs from.
    static let pathKeys: Set<String> = ["out", "cache-dir", "report", "index", "html", "events", "netrc-file",
                                        "source-headers", "output"]

    /// `value` (a path, or `-` for a standard stream) relative to the folder of the file at `path`.
    private static func resolved(_ value: String, in path: String) -> String {
        guard value != "-", !value.hasPrefix("/") else { return value }
        return URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(value).path
    }

    /// The value of `--name VALUE` or `--name=VALUE` in `arguments` (before a `--`).
    static func value(of name: String, in arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { return nil }
            if argument == name, index + 1 < arguments.count { return arguments[index + 1] }
            if argument.hasPrefix(name + "=") { return String(argument.dropFirst(name.count + 1)) }
        }
        return nil
    }

    private static func isGiven(_ name: String, in arguments: [String]) -> Bool {
        for argument in arguments {
            if argument == "--" { return false }
            if argument == name || argument.hasPrefix(name + "=") { return true }
        }
        return false
    }

    private static func unknown(_ entry: ConfigFile.Entry, place: String, in path: String, known: CommandFlags) -> ConfigError {
        let near = known.closest(to: entry.key).map { "; did you mean \($0)?" } ?? ""
        return ConfigError(file: path, line: entry.line, message: "\(place): no such setting\(near)")
    }

    /// The added flag the parser's `message` names, with where it came from: the message with
    /// the setting's file, line and key in front; nil when it names none of them.
    func explain(_ message: String) -> String? {
        for (flag, origin) in origins.sorted(by: { $0.key.count > $1.key.count })
        where message.range(of: "'\(flag)'") != nil || message.range(of: "\(flag) ") != nil
            || message.range(of: "\(flag):") != nil || message.hasSuffix(flag) {
            let text = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
            return "thumbgen: \(origin): \(text)"
        }
        return nil
    }
}

/// A command's flags and options as its parser describes them (`_dumpHelp`'s tool info).
struct CommandFlags {
    struct Flag {
        /// Every name, with its dashes (`--size`, `-s`).
        var names: [String]
        /// The first long name.
        var longName: String
        /// A flag takes no value.
        var isFlag: Bool
    }

    private var byKey: [String: Flag] = [:]

    init(_ command: any ParsableCommand.Type) {
        struct Info: Decodable {
            struct Command: Decodable { var arguments: [Argument]? }
            struct Argument: Decodable {
                struct Name: Decodable { var kind: String; var name: String }
                var kind: String
                var names: [Name]?
            }
            var command: Command
        }
        guard let info = try? JSONDecoder().decode(Info.self, from: Data(command._dumpHelp().utf8)) else { return }
        for argument in info.command.arguments ?? [] where argument.kind != "positional" {
            let names = (argument.names ?? []).map { $0.kind == "short" ? "-" + $0.name : "--" + $0.name }
            guard let long = (argument.names ?? []).first(where: { $0.kind == "long" })?.name else { continue }
            let flag = Flag(names: names, longName: "--" + long, isFlag: argument.kind == "flag")
            for name in argument.names ?? [] where name.kind == "long" { byKey[name.name] = flag }
        }
        // Settings the file itself decides, not flags of a run.
        for own in ["config", "no-config", "preset", "help", "version"] { byKey[own] = nil }
    }

    /// The flag a key names: the flag's long name without its dashes, or with `_` for `-`
    /// (a column's spelling).
    func flag(for key: String) -> Flag? {
        byKey[key] ?? byKey[key.replacingOccurrences(of: "_", with: "-")]
    }

    /// The known key nearest to `key`, for a suggestion.
    func closest(to key: String) -> String? {
        byKey.keys.map { ($0, Self.distance($0, key)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }
}
