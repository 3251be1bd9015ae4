/// The top-level properties of an XMP packet, by namespace URI and name.
///
/// RDF lets a writer put a simple property either as an attribute of `rdf:Description` or as a
/// child element, and lists as `rdf:Seq`, `rdf:Bag` or `rdf:Alt` of `rdf:li`; all are read into
/// the same `Value`. Structures (`rdf:parseType="Resource"`) and qualifiers other than
/// `xml:lang` are not needed for rights and are passed over. When a property appears in
/// several descriptions, the first one wins.
struct XMPProperties {
    /// The RDF namespace.
    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

    /// One property's value: a simple value is one item without a language.
    struct Value: Equatable {
        /// One item and its `xml:lang`, if any.
        typealias Item = (language: String?, text: String)

        /// The items in order.
        var items: [Item]

        static func == (left: Value, right: Value) -> Bool {
            left.items.elementsEqual(right.items) { $0.language == $1.language && $0.text == $1.text }
        }
    }

    /// The values found, keyed by resolved name.
    private(set) var values: [XMLScanner.Name: Value] = [:]

    /// The properties of `packet` (UTF-8 XML, with or without its `<?xpacket?>` wrapper).
    init(_ packet: [UInt8]) {
        var path: [XMLScanner.Name] = []  // the open elements
        var descriptionDepth: Int?  // path.count inside the current top-level rdf:Description
        var property: (name: XMLScanner.Name, text: String, items: [Value.Item], hasChildren: Bool)?
        var item: (language: String?, text: String, depth: Int)?
        for event in XMLScanner.events(packet) {
            switch event {
            case .start(let name, let attributes):
                path.append(name)
                if descriptionDepth == nil, name == Self.rdfName("Description"),
                   path.dropLast().last == Self.rdfName("RDF") {
                    descriptionDepth = path.count
                    for (attribute, value) in attributes where Self.isProperty(attribute) {
                        store(attribute, Value(items: [(nil, value)]))
                    }
                } else if let depth = descriptionDepth, path.count == depth + 1 {
                    // A property element; `rdf:resource` gives its value as a URI.
                    let resource = attributes[Self.rdfName("resource")]
                    property = (name, "", resource.map { [(nil, $0)] } ?? [], false)
                } else if property != nil {
                    property?.hasChildren = true
                    if name == Self.rdfName("li"), item == nil {
                        item = (attributes[XMLScanner.Name(namespace: XMLScanner.xmlNamespace, local: "lang")], "", path.count)
                    }
                }
            case .text(let text):
                if let current = item, current.depth == path.count {
                    item?.text += text
                } else if property != nil, let depth = descriptionDepth, path.count == depth + 1 {
                    property?.text += text
                }
            case .end:
                if let current = item, current.depth == path.count {
                    property?.items.append((current.language, current.text))
                    item = nil
                } else if let current = property, let depth = descriptionDepth, path.count == depth + 1 {
                    if !current.items.isEmpty {
                        store(current.name, Value(items: current.items))
                    } else if !current.hasChildren {
                        store(current.name, Value(items: [(nil, current.text)]))
                    }
                    property = nil
                } else if path.count == descriptionDepth {
                    descriptionDepth = nil
                }
                path.removeLast()
            }
        }
    }

    /// The text of a simple property, or of a language alternative's `x-default` item (else
    /// its first): the one a reader shows when it does not know the user's language.
    func text(_ namespace: String, _ local: String) -> String? {
        guard let items = values[XMLScanner.Name(namespace: namespace, local: local)]?.items else { return nil }
        return (items.first { $0.language?.lowercased() == "x-default" } ?? items.first)?.text
    }

    /// The items of an ordered or unordered array, or a simple value as one item.
    func list(_ namespace: String, _ local: String) -> [String] {
        values[XMLScanner.Name(namespace: namespace, local: local)]?.items.map(\.text) ?? []
    }

    /// Keeps the first value found for `name`.
    private mutating func store(_ name: XMLScanner.Name, _ value: Value) {
        if values[name] == nil { values[name] = value }
    }

    /// An attribute of `rdf:Description` that is a property: not RDF's own (`rdf:about`), not
    /// `xml:lang`, and in a namespace.
    private static func isProperty(_ name: XMLScanner.Name) -> Bool {
        guard let namespace = name.namespace else { return false }
        return namespace != rdf && namespace != XMLScanner.xmlNamespace
    }

    /// A name in the RDF namespace.
    private static func rdfName(_ local: String) -> XMLScanner.Name {
        XMLScanner.Name(namespace: rdf, local: local)
    }
}
