import ArgumentParser

/// Which `thumbgen.toml` a command reads, and which of its presets it applies: read by
/// `ConfigArguments` before the parser runs, declared here so that the parser takes them.
struct ConfigChoice: ParsableArguments {
    @Option(help: "Read settings from this TOML file instead of the nearest thumbgen.toml in the folder or a folder above (docs/config.md).")
    var config: String?

    @Flag(help: "Read no thumbgen.toml.")
    var noConfig = false

    @Option(help: "Apply the settings of the config file's [presets.NAME] table: below the flags given, above the rest of the file.")
    var preset: String?
}
