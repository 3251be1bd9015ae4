/// Who made a picture and on what terms it may be used: what `--keep copyright` carries from a
/// source into its outputs.
///
/// The same facts are stored up to three times in a source (XMP, IPTC-IIM, EXIF) and writers do
/// not keep them in step. XMP wins because it is Unicode and the newest; IIM comes next because
/// it has more of these fields than EXIF. Each field is taken from the first source that has
/// it, so a photo captioned in XMP but credited only in IIM keeps both.
struct ImageRights: Equatable, Sendable {
    /// The creators, in order (XMP `dc:creator`, IIM 2:80 By-line, EXIF Artist).
    var creators: [String] = []
    /// The copyright notice (XMP `dc:rights`, IIM 2:116, EXIF Copyright).
    var copyright: String?
    /// The credit line (XMP `photoshop:Credit`, IIM 2:110).
    var credit: String?
    /// The original owner or supplier (XMP `photoshop:Source`, IIM 2:115).
    var source: String?
    /// How the picture may be used (XMP `xmpRights:UsageTerms`).
    var usageTerms: String?
    /// A web page about the rights (XMP `xmpRights:WebStatement`).
    var webStatement: String?
    /// Whether the picture is rights-managed (true) or public domain (false) (XMP `xmpRights:Marked`).
    var marked: Bool?
    /// The first creator's job title (XMP `photoshop:AuthorsPosition`, IIM 2:85 By-line Title).
    var creatorJobTitle: String?

    /// Whether no field is set: then nothing is written.
    var isEmpty: Bool { self == ImageRights() }

    /// The rights in a source's metadata as libvips gives it (`exif-data`, `xmp-data`,
    /// `iptc-data`); a field missing or unreadable in one source is taken from the next.
    static func read(exif: [UInt8]? = nil, xmp: [UInt8]? = nil, iptc: [UInt8]? = nil) -> ImageRights {
        let sources = [xmp.map(ImageRights.init(xmp:)), iptc.map(ImageRights.init(iptc:)),
                       exif.map(ImageRights.init(exif:))].compactMap { $0 }
        func first<Value>(_ field: KeyPath<ImageRights, Value?>) -> Value? {
            sources.lazy.compactMap { $0[keyPath: field] }.first
        }
        var rights = ImageRights()
        rights.creators = sources.first { !$0.creators.isEmpty }?.creators ?? []
        rights.copyright = first(\.copyright)
        rights.credit = first(\.credit)
        rights.source = first(\.source)
        rights.usageTerms = first(\.usageTerms)
        rights.webStatement = first(\.webStatement)
        rights.marked = first(\.marked)
        rights.creatorJobTitle = first(\.creatorJobTitle)
        return rights
    }

    /// These rights with every text trimmed and empty texts removed, which is how each reader
    /// hands its fields over, so that "present" means "has something to say".
    func cleaned() -> ImageRights {
        var rights = self
        rights.creators = creators.compactMap(RightsText.cleaned)
        rights.copyright = RightsText.cleaned(copyright)
        rights.credit = RightsText.cleaned(credit)
        rights.source = RightsText.cleaned(source)
        rights.usageTerms = RightsText.cleaned(usageTerms)
        rights.webStatement = RightsText.cleaned(webStatement)
        rights.creatorJobTitle = RightsText.cleaned(creatorJobTitle)
        return rights
    }
}
