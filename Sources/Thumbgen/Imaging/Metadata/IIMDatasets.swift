/// IPTC-IIM datasets, and the Photoshop image resources that carry them in a JPEG.
///
/// libvips' `iptc-data` is the whole APP13 payload when it comes from a JPEG (`Photoshop 3.0\0`,
/// then 8BIM resources, IIM in resource 0x0404) and bare IIM when it comes from a TIFF; both
/// are accepted. Reading stops at the first thing that does not fit, keeping what came before.
enum IIMDatasets {
    /// One dataset: record 1 is the envelope, record 2 the application record.
    struct Dataset: Equatable {
        /// The record number.
        var record: UInt8
        /// The dataset number within the record (2:80 By-line, 2:116 Copyright Notice, …).
        var number: UInt8
        /// The value's bytes, in whatever character set 1:90 declares.
        var value: [UInt8]
    }

    /// What starts an APP13 payload written by Photoshop and everyone after it.
    static let photoshopSignature: [UInt8] = Array("Photoshop 3.0\0".utf8)
    /// The image resource that holds IIM.
    static let iimResource = 0x0404
    /// The signature of an image resource block; the others Adobe documents are rare but valid.
    private static let resourceSignatures: [[UInt8]] = ["8BIM", "MeSa", "AgHg", "PHUT", "DCSR"].map { Array($0.utf8) }

    /// The datasets in `blob`, from its IIM resource or as bare IIM; empty when there are none.
    static func read(_ blob: [UInt8]) -> [Dataset] {
        if blob.first == 0x1C { return datasets(blob[...]) }
        let resources = blob.starts(with: photoshopSignature) ? blob.dropFirst(photoshopSignature.count) : blob[...]
        return resource(iimResource, in: resources).map(datasets) ?? []
    }

    /// An APP13 payload holding one IIM resource with `datasets`.
    static func photoshopBlock(_ datasets: [Dataset]) -> [UInt8] {
        var iim: [UInt8] = []
        for dataset in datasets {
            // Values here are far below 32 KB, so the two-byte length form always serves.
            iim += [0x1C, dataset.record, dataset.number, UInt8(dataset.value.count >> 8), UInt8(dataset.value.count & 0xFF)]
            iim += dataset.value
        }
        let size = iim.count
        var block = photoshopSignature + Array("8BIM".utf8) + [UInt8(iimResource >> 8), UInt8(iimResource & 0xFF)]
        block += [0, 0]  // an empty name: its length byte and a pad to even length
        block += [UInt8(size >> 24 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
        block += iim
        if size % 2 == 1 { block.append(0) }  // resource data is padded to even length
        return block
    }

    /// The data of the first resource `id` among `resources`, or nil.
    private static func resource(_ id: Int, in resources: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        var index = resources.startIndex
        let end = resources.endIndex
        while end - index >= 12, resourceSignatures.contains(where: { resources[index..<(index + 4)].elementsEqual($0) }) {
            let resourceID = Int(resources[index + 4]) << 8 | Int(resources[index + 5])
            // A Pascal-string name; length byte and name together are padded to even length.
            let nameField = 1 + Int(resources[index + 6])
            let sizeAt = index + 6 + nameField + nameField % 2
            guard end - sizeAt >= 4 else { return nil }
            let size = resources[sizeAt..<(sizeAt + 4)].reduce(0) { $0 << 8 | Int($1) }
            let dataStart = sizeAt + 4
            guard size <= end - dataStart else { return nil }
            if resourceID == id { return resources[dataStart..<(dataStart + size)] }
            index = dataStart + size + size % 2
        }
        return nil
    }

    /// The datasets at the start of `iim`, up to the first byte that does not begin one
    /// (writers often pad IIM with zeros).
    private static func datasets(_ iim: ArraySlice<UInt8>) -> [Dataset] {
        var result: [Dataset] = []
        var index = iim.startIndex
        let end = iim.endIndex
        while end - index >= 5, iim[index] == 0x1C {
            var length = Int(iim[index + 3]) << 8 | Int(iim[index + 4])
            var valueStart = index + 5
            if length & 0x8000 != 0 {
                // The extended form: the low bits count the bytes of the real length (IIM 4.2 1.5.3).
                let lengthBytes = length & 0x7FFF
                guard lengthBytes <= 4, end - valueStart >= lengthBytes else { break }
                length = iim[valueStart..<(valueStart + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
                valueStart += lengthBytes
            }
            guard length <= end - valueStart else { break }
            result.append(Dataset(record: iim[index + 1], number: iim[index + 2],
                                  value: Array(iim[valueStart..<(valueStart + length)])))
            index = valueStart + length
        }
        return result
    }
}
