import ArgumentParser
import Foundation
import Thumbgen

/// The options that decide what a row's outputs are and where their sources come from: the
/// cache, the column defaults, the encoder and decoding flags, the download settings and the image limits.
/// `render`, `warm` and `explain` share them, so that `explain` plans a row with the key the
/// run would use.
struct RecipeOptions: ParsableArguments {
    @OptionGroup(title: "Cache")
    var cache: CacheOptions

    @OptionGroup(title: "Column defaults")
    var defaults: ColumnDefaults

    @OptionGroup(title: "Output formats")
    var formats: FormatOptions

    @OptionGroup(title: "HTTP sources")
    var fetch: FetchOptions

    @OptionGroup(title: "Image limits")
    var limits: LimitOptions

    @OptionGroup(title: "Source identity and credentials")
    var sources: SourceOptions

    /// A row parser for a manifest in `baseDirectory`, with these defaults and encoder flags.
    func parser(baseDirectory: String) -> RowParser {
        var parser = RowParser(defaults: defaults.values, baseDirectory: baseDirectory)
        parser.encoding = formats.encoding
        parser.queryFilter = try? sources.queryFilter  // checked by validate()
        return parser
    }
}
