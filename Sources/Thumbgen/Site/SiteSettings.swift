/// What `thumbgen site` makes of each image a page shows.
public struct SiteSettings: Sendable, Equatable {
    /// The widths of the ladder, each kept where the source is at least a quarter wider, and
    /// the source's own width (up to the largest of these) added on top.
    public var widths: [Int] = [320, 640, 960, 1280, 1920]
    /// The formats of the `<source>` elements, best first; the `<img>` falls back to JPEG, or
    /// PNG where the source has alpha.
    public var formats: [String] = ["webp"]
    /// The `sizes` an `<img>` without one of its own gets.
    public var sizes = "100vw"
    /// Sources narrower than this are left alone (`small`).
    public var minWidth = 128
    /// The folder of the site the outputs go in, relative to it.
    public var outFolder = "_thumbgen"
    /// The site's own address (`https://example.org/blog/`): an `src` under it is a file of
    /// the site, its path taken from there; nil: every absolute URL is another site's.
    public var baseURL: String?

    /// The default settings.
    public init() {}

    /// The ladder for a source `width` pixels wide.
    func ladder(sourceWidth width: Int) -> [Int] {
        let top = min(width, widths.max() ?? width)
        return widths.sorted().filter { $0 * 5 <= top * 4 } + [top]
    }
}
