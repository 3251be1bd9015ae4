/// A small, tolerant, namespace-aware XML scanner for XMP packets (FoundationXML is not linked).
///
/// It reads elements, attributes, text, CDATA and character references, skips processing
/// instructions, comments and DOCTYPE (whose entities it never expands), and resolves each name
/// to a namespace URI, since XMP prefixes are only conventions. Malformed input ends the scan
/// with the events read so far rather than an error: half a packet may still hold a credit.
/// Each byte is looked at a bounded number of times and nesting is capped, so hostile input
/// costs linear time and memory.
struct XMLScanner {
    /// A name resolved to its namespace (nil for an unprefixed attribute or an unbound prefix).
    struct Name: Hashable, Sendable {
        /// The namespace URI.
        var namespace: String?
        /// The local part, after the prefix.
        var local: String
    }

    /// One thing read, in document order.
    enum Event: Equatable {
        /// An element starts, with its attributes (`xmlns` declarations left out).
        case start(Name, [Name: String])
        /// The innermost open element ends.
        case end
        /// Character data, with references replaced.
        case text(String)
    }

    /// The deepest nesting followed; XMP needs about ten, more is refused as hostile.
    static let maximumDepth = 200
    /// The namespace the `xml:` prefix is bound to without a declaration.
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    private let bytes: [UInt8]
    private var index = 0
    private var events: [Event] = []
    /// The raw names of the open elements, with the prefixes each declared.
    private var open: [(name: ArraySlice<UInt8>, declared: [String])] = []
    /// How many open elements have each raw name.
    private var openNames: [ArraySlice<UInt8>: Int] = [:]
    /// Each prefix's bindings, innermost last; "" is the default namespace.
    private var bindings: [String: [String]] = ["xml": [xmlNamespace]]

    /// The events of `document`, up to the first thing that cannot be read.
    static func events(_ document: [UInt8]) -> [Event] {
        var scanner = XMLScanner(bytes: document)
        scanner.scan()
        return scanner.events
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a byte order mark
    }

    private mutating func scan() {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                let end = bytes[index...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                events.append(.text(XMLText.decode(bytes[index..<end], attribute: false)))
                index = end
                continue
            }
            let proceed: Bool
            if starts(with: "<?") {
                proceed = skip(past: "?>")
            } else if starts(with: "<!--") {
                proceed = skip(past: "-->")
            } else if starts(with: "<![CDATA[") {
                let start = index + 9
                proceed = skip(past: "]]>")
                if proceed { events.append(.text(RightsText.decodeUTF8(bytes[start..<(index - 3)]))) }
            } else if starts(with: "<!") {
                proceed = skipDeclaration()
            } else if starts(with: "</") {
                proceed = endTag()
            } else {
                proceed = startTag()
            }
            guard proceed else { return }
        }
    }

    /// Whether the bytes at the current index are `text`.
    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        return (0..<count).allSatisfy { bytes[index + $0] == text.utf8Start[$0] }
    }

    /// Moves past the next `terminator`; false when there is none.
    private mutating func skip(past terminator: StaticString) -> Bool {
        let first = terminator.utf8Start[0]
        while index < bytes.count {
            if bytes[index] == first, starts(with: terminator) {
                index += terminator.utf8CodeUnitCount
                return true
            }
            index += 1
        }
        return false
    }

    /// Moves past `<!DOCTYPE …>`, with an internal subset in brackets; its entities are not read.
    private mutating func skipDeclaration() -> Bool {
        var inSubset = false
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "["): inSubset = true
            case UInt8(ascii: "]"): inSubset = false
            case UInt8(ascii: ">") where !inSubset:
                index += 1
                return true
            default: break
            }
            index += 1
        }
        return false
    }

    /// Reads `</name>`, closing the matching open element and any left open inside it; an end
    /// tag that matches nothing open is ignored.
    private mutating func endTag() -> Bool {
        index += 2
        let name = readName()
        guard skip(past: ">") else { return false }
        // Stray end tags are checked against a count, not the stack, so that many of them
        // cost no more than reading them.
        guard openNames[name, default: 0] > 0, let match = open.lastIndex(where: { $0.name == name }) else { return true }
        while open.count > match { close() }
        return true
    }

    /// Reads `<name attr="value" …>` or `<name …/>`.
    private mutating func startTag() -> Bool {
        index += 1
        let name = readName()
        guard !name.isEmpty, open.count < Self.maximumDepth else { return false }
        var attributes: [(name: ArraySlice<UInt8>, value: String)] = []
        var selfClosing = false
        while true {
            skipSpace()
            guard index < bytes.count else { return false }
            if bytes[index] == UInt8(ascii: ">") { index += 1; break }
            if starts(with: "/>") { index += 2; selfClosing = true; break }
            let attributeName = readName()
            skipSpace()
            guard !attributeName.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else { return false }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'"),
                  let end = bytes[(index + 1)...].firstIndex(of: bytes[index]) else { return false }
            attributes.append((attributeName, XMLText.decode(bytes[(index + 1)..<end], attribute: true)))
            index = end + 1
        }
        var declared: [String] = []
        var resolved: [Name: String] = [:]
        for attribute in attributes {
            let (prefix, local) = Self.split(attribute.name)
            if prefix == nil, local == "xmlns" {
                declared.append("")
                bindings["", default: []].append(attribute.value)
            } else if prefix == "xmlns" {
                declared.append(local)
                bindings[local, default: []].append(attribute.value)
            }
        }
        for attribute in attributes {
            let (prefix, local) = Self.split(attribute.name)
            guard prefix != "xmlns", !(prefix == nil && local == "xmlns") else { continue }
            // Unprefixed attributes are in no namespace (Namespaces in XML 1.0, 6.2).
            let name = Name(namespace: prefix.flatMap { bindings[$0]?.last }, local: local)
            if resolved[name] == nil { resolved[name] = attribute.value }
        }
        let (prefix, local) = Self.split(name)
        events.append(.start(Name(namespace: bindings[prefix ?? ""]?.last, local: local), resolved))
        open.append((name, declared))
        openNames[name, default: 0] += 1
        if selfClosing { close() }
        return true
    }

    /// Ends the innermost open element and forgets the prefixes it declared.
    private mutating func close() {
        guard let element = open.popLast() else { return }
        openNames[element.name, default: 1] -= 1
        for prefix in element.declared { bindings[prefix]?.removeLast() }
        events.append(.end)
    }

    /// The name at the current index: everything up to white space, `/`, `>` or `=`.
    private mutating func readName() -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count, !Self.nameEnds.contains(bytes[index]) { index += 1 }
        return bytes[start..<index]
    }

    private mutating func skipSpace() {
        while index < bytes.count, Self.space.contains(bytes[index]) { index += 1 }
    }

    /// A raw `prefix:local` name split at its first colon.
    private static func split(_ name: ArraySlice<UInt8>) -> (prefix: String?, local: String) {
        guard let colon = name.firstIndex(of: UInt8(ascii: ":")) else { return (nil, String(decoding: name, as: UTF8.self)) }
        return (String(decoding: name[..<colon], as: UTF8.self),
                String(decoding: name[(colon + 1)...], as: UTF8.self))
    }

    private static let space: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
    private static let nameEnds: Set<UInt8> = space.union([UInt8(ascii: "/"), UInt8(ascii: ">"), UInt8(ascii: "="), UInt8(ascii: "<")])
}
