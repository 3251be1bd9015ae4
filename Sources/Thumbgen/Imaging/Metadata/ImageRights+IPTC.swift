extension ImageRights {
    /// The application-record datasets these rights use, with IIM 4.2's maximum length for each.
    private enum IIMField: UInt8, CaseIterable {
        case byline = 80, bylineTitle = 85, credit = 110, source = 115, copyrightNotice = 116

        /// The most bytes the dataset may hold (IIM 4.2, chapter 6).
        var maximumLength: Int { self == .copyrightNotice ? 128 : 32 }
    }

    /// 1:90 Coded Character Set, and the value that means UTF-8 (ISO 2022 `ESC % G`).
    private static let codedCharacterSet: UInt8 = 90
    private static let utf8Designation: [UInt8] = [0x1B, 0x25, 0x47]

    /// The rights in libvips' `iptc-data` (an APP13 payload or bare IIM); empty when unreadable.
    ///
    /// Values are UTF-8 when 1:90 says so; otherwise each is UTF-8 if valid, else Latin-1,
    /// because writers that omit 1:90 used whatever their platform did.
    init(iptc: [UInt8]) {
        self.init()
        let datasets = IIMDatasets.read(iptc)
        let declaredUTF8 = datasets.contains {
            $0.record == 1 && $0.number == Self.codedCharacterSet && $0.value.starts(with: Self.utf8Designation)
        }
        func texts(_ field: IIMField) -> [String] {
            datasets.filter { $0.record == 2 && $0.number == field.rawValue }.map {
                declaredUTF8 ? RightsText.decodeUTF8($0.value) : RightsText.decode($0.value)
            }
        }
        // The non-repeatable fields take the first non-empty value, should one be repeated.
        creators = texts(.byline)
        creatorJobTitle = texts(.bylineTitle).lazy.compactMap(RightsText.cleaned).first
        credit = texts(.credit).lazy.compactMap(RightsText.cleaned).first
        source = texts(.source).lazy.compactMap(RightsText.cleaned).first
        copyright = texts(.copyrightNotice).lazy.compactMap(RightsText.cleaned).first
        self = cleaned()
    }

    /// An APP13 payload (`Photoshop 3.0\0`, one 8BIM resource 0x0404) with the IIM fields of
    /// these rights in UTF-8, each cut to its IIM maximum length; nil when none is set.
    ///
    /// Usage terms, web statement and marked have no IIM dataset and are only in the XMP.
    func iptcBlock() -> [UInt8]? {
        var fields: [(IIMField, String)] = creators.map { (.byline, $0) }
        if let creatorJobTitle { fields.append((.bylineTitle, creatorJobTitle)) }
        if let credit { fields.append((.credit, credit)) }
        if let source { fields.append((.source, source)) }
        if let copyright { fields.append((.copyrightNotice, copyright)) }
        guard !fields.isEmpty else { return nil }
        var datasets = [IIMDatasets.Dataset(record: 1, number: Self.codedCharacterSet, value: Self.utf8Designation),
                        IIMDatasets.Dataset(record: 2, number: 0, value: [0x00, 0x04])]  // record version 4
        for (field, text) in fields {
            let value = RightsText.utf8Prefix(text, limit: field.maximumLength)
            guard !value.isEmpty else { continue }  // one character longer than the limit
            datasets.append(IIMDatasets.Dataset(record: 2, number: field.rawValue, value: value))
        }
        return IIMDatasets.photoshopBlock(datasets)
    }
}
