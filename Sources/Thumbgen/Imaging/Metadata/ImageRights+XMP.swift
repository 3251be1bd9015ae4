import Foundation

extension ImageRights {
    /// The Dublin Core namespace (`dc:creator`, `dc:rights`).
    static let dublinCore = "http://purl.org/dc/elements/1.1/"
    /// Photoshop's namespace (`photoshop:Credit`, `Source`, `AuthorsPosition`).
    static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    /// The XMP rights management namespace (`xmpRights:UsageTerms`, `WebStatement`, `Marked`).
    static let xmpRights = "http://ns.adobe.com/xap/1.0/rights/"

    /// The rights in an XMP packet; empty when it holds none or cannot be read.
    init(xmp: [UInt8]) {
        let properties = XMPProperties(xmp)
        self.init()
        creators = properties.list(Self.dublinCore, "creator")
        copyright = properties.text(Self.dublinCore, "rights")
        credit = properties.text(Self.photoshop, "Credit")
        source = properties.text(Self.photoshop, "Source")
        usageTerms = properties.text(Self.xmpRights, "UsageTerms")
        webStatement = properties.text(Self.xmpRights, "WebStatement")
        creatorJobTitle = properties.text(Self.photoshop, "AuthorsPosition")
        // XMP booleans are "True" and "False"; some writers use lower case.
        switch properties.text(Self.xmpRights, "Marked")?.trimmingCharacters(in: .whitespaces).lowercased() {
        case "true": marked = true
        case "false": marked = false
        default: marked = nil
        }
        self = cleaned()
    }

    /// A fresh XMP packet holding only these rights, or nil when there are none.
    ///
    /// Compact (simple values as attributes, no padding) because thumbnails are small; the
    /// wrapper is kept because some readers look for it to find the packet. `end="w"` is what
    /// Adobe's toolkit writes; without padding an in-place editor will find no room and rewrite.
    func xmpPacket() -> [UInt8]? {
        guard !isEmpty else { return nil }
        var attributes: [(String, String)] = []
        if let credit { attributes.append(("photoshop:Credit", credit)) }
        if let source { attributes.append(("photoshop:Source", source)) }
        if let creatorJobTitle { attributes.append(("photoshop:AuthorsPosition", creatorJobTitle)) }
        if let webStatement { attributes.append(("xmpRights:WebStatement", webStatement)) }
        if let marked { attributes.append(("xmpRights:Marked", marked ? "True" : "False")) }
        var elements = ""
        if !creators.isEmpty {
            let items = creators.map { "<rdf:li>\(XMLText.escaped($0, attribute: false))</rdf:li>" }
            elements += "<dc:creator><rdf:Seq>\(items.joined())</rdf:Seq></dc:creator>\n"
        }
        if let copyright { elements += Self.alternative("dc:rights", copyright) }
        if let usageTerms { elements += Self.alternative("xmpRights:UsageTerms", usageTerms) }
        var text = "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
        text += "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
        text += "<rdf:RDF xmlns:rdf=\"\(XMPProperties.rdf)\">\n"
        text += "<rdf:Description rdf:about=\"\" xmlns:dc=\"\(Self.dublinCore)\""
        text += " xmlns:photoshop=\"\(Self.photoshop)\" xmlns:xmpRights=\"\(Self.xmpRights)\""
        for (name, value) in attributes { text += "\n \(name)=\"\(XMLText.escaped(value, attribute: true))\"" }
        text += elements.isEmpty ? "/>\n" : ">\n\(elements)</rdf:Description>\n"
        text += "</rdf:RDF>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>"
        return Array(text.utf8)
    }

    /// A language alternative with one `x-default` item, as XMP requires for these properties.
    private static func alternative(_ name: String, _ value: String) -> String {
        "<\(name)><rdf:Alt><rdf:li xml:lang=\"x-default\">\(XMLText.escaped(value, attribute: false))</rdf:li></rdf:Alt></\(name)>\n"
    }
}
