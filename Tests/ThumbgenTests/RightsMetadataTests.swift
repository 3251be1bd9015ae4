import Foundation
import Testing
@testable import Thumbgen

/// What `--keep copyright|exif` embeds: the source's EXIF without GPS, IFD1 or a turn, and the
/// rights read from XMP, IPTC and EXIF and written back as fresh blocks.
///
/// EXIF fixtures are TIFF structures built byte by byte in both byte orders, so every offset is
/// known; where exiftool is installed it reads the results as an independent reader, and writes
/// sources as an independent writer.
@Suite("Rights metadata")
struct RightsMetadataTests {
    // MARK: - EXIF filter

    @Test("The GPS IFD, IFD1 and its thumbnail are erased, Orientation is 1, the rest stays in place",
          arguments: [true, false])
    func filterErases(littleEndian: Bool) throws {
        let source = CameraEXIF(littleEndian: littleEndian)
        let filtered = try #require(EXIFFilter.forOutput(TIFFBytes.exifPrefix + source.bytes))
        #expect(filtered.count == source.bytes.count)  // edited in place, prefix gone
        #expect(Self.find(source.gpsMarker, in: filtered) == nil)
        #expect(Self.find(source.latitude, in: filtered) == nil)
        #expect(Self.find(source.thumbnailMarker, in: filtered) == nil)
        let tiff = try #require(TIFFBytes(filtered))
        #expect(tiff.littleEndian == littleEndian)
        let ifd0 = try #require(tiff.directory(at: source.ifd0))
        #expect(ifd0.entries.map(\.tag) == [0x010F, 0x0112, 0x013B, 0x8298, 0x8769, 0x9C9D])
        #expect(ifd0.nextOffset == 0)
        #expect(tiff.uint16(at: try #require(ifd0.entry(0x0112)).position + 8) == 1)
        // The entry after GPSInfo moved up and still points at its value.
        let author = try #require(ifd0.entry(0x9C9D)?.valueRange)
        #expect(Array(filtered[author]) == CameraEXIF.xpAuthor)
        // The Exif IFD and its maker note are byte for byte where they were.
        #expect(filtered[source.exifIFDBytes] == source.bytes[source.exifIFDBytes])
        #expect(ImageRights(exif: filtered).creators == ["Jane Doe", "John Roe"])
    }

    @Test("Without GPS or IFD1 only Orientation changes", arguments: [true, false])
    func filterWithoutGPS(littleEndian: Bool) throws {
        let source = CameraEXIF(littleEndian: littleEndian, gps: false, thumbnail: false)
        let filtered = try #require(EXIFFilter.forOutput(source.bytes))
        let tiff = try #require(TIFFBytes(filtered))
        let orientation = try #require(tiff.directory(at: source.ifd0)?.entry(0x0112)).position + 8
        #expect(tiff.uint16(at: orientation) == 1)
        var expected = TIFFBytes(source.bytes)
        expected?.setUInt16(1, at: orientation)
        #expect(filtered == expected?.bytes)
    }

    @Test("A GPS pointer of 0 goes without anything to erase")
    func filterNullGPSPointer() throws {
        let source = CameraEXIF(littleEndian: true, thumbnail: false)
        let filtered = try #require(EXIFFilter.forOutput(source.patching32(at: source.gpsPointerField, 0)))
        let ifd0 = try #require(TIFFBytes(filtered)?.directory(at: source.ifd0))
        #expect(ifd0.entry(EXIFFilter.gpsIFDTag) == nil)
        #expect(ifd0.entries.count == 6)
    }

    @Test("Malformed EXIF gives nil: loops, offsets past the end, overflowing counts, no header")
    func filterRefusesMalformed() {
        let good = CameraEXIF(littleEndian: true)
        var cases: [String: [UInt8]] = [
            "empty": [], "prefix only": TIFFBytes.exifPrefix, "not TIFF": Array("II+\0\u{8}\0\0\0".utf8),
            "header only": [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0],
        ]
        cases["IFD0 past the end"] = good.patching32(at: 4, UInt32(good.bytes.count + 100))
        cases["IFD0 inside the header"] = good.patching32(at: 4, 2)
        cases["IFD1 is IFD0"] = good.patching32(at: good.nextIFDField, UInt32(good.ifd0))
        cases["IFD1 points back to IFD0"] = good.patching32(at: good.ifd1NextField, UInt32(good.ifd0))
        cases["GPS IFD past the end"] = good.patching32(at: good.gpsPointerField, 0xFFFF_FFF0)
        cases["GPS IFD is IFD0"] = good.patching32(at: good.gpsPointerField, UInt32(good.ifd0))
        cases["GPS value count overflows"] = good.patching32(at: good.gpsLatitudeCountField, 0xFFFF_FFFF)
        cases["truncated inside IFD0"] = Array(good.bytes.prefix(good.ifd0 + 20))
        for (name, bytes) in cases {
            #expect(EXIFFilter.forOutput(bytes) == nil, "\(name)")
        }
    }

    @Test("Damaged EXIF never traps, and what is returned keeps the length")
    func filterSurvivesDamage() {
        let source = CameraEXIF(littleEndian: false)
        var random = SplitMix(seed: 31)
        for _ in 0..<2_000 {
            var bytes = source.bytes
            for _ in 0..<(1 + random.next(below: 4)) {
                bytes[random.next(below: bytes.count)] = UInt8(random.next(below: 256))
            }
            if let filtered = EXIFFilter.forOutput(bytes) {
                #expect(filtered.count == bytes.count)
            }
            _ = ImageRights(exif: bytes)
        }
    }

    @Test("An IFD1 value at offset 0 gives nil: erasing it would zero the TIFF header (found by fuzzing)")
    func filterKeepsHeader() {
        let exif: [UInt8] = [
            0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00,  // II, IFD0 at 8
            0x01, 0x00, 0x0F, 0x01, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00,  // Make "A"
            0x1A, 0x00, 0x00, 0x00,  // IFD1 at 26
            0x01, 0x00, 0x1A, 0x01, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // XResolution at 0
            0x00, 0x00, 0x00, 0x00,
        ]
        #expect(EXIFFilter.forOutput(exif) == nil)
    }

    @Test("An Exif IFD inside IFD0's table gives nil: rewriting the table would change it (found by fuzzing)")
    func filterRefusesIFDInsideIFD0() {
        // IFD0 at 8: an Orientation that is not one SHORT (removed, so the entries after it
        // move up), two entries of no known type, and the Exif IFD pointer to offset 21,
        // inside IFD0's own table. Filtering used to give bytes that filtered again differently.
        let exif: [UInt8] = [
            0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x04,
            0x01, 0x12, 0x00, 0x6A, 0x87, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
            0x00, 0x00, 0x26, 0x02, 0x00, 0x00, 0x00, 0x24, 0x00, 0x00, 0x00, 0x3E,
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1E, 0x00, 0x00, 0x00, 0x62,
            0x87, 0x69, 0x00, 0x04, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x15,
            0x00, 0x00, 0x00, 0x00,
        ]
        #expect(EXIFFilter.forOutput(exif) == nil)
    }

    @Test("Every Orientation in IFD0 becomes 1, not only the last of two")
    func filterTurnsEveryOrientation() throws {
        let exif: [UInt8] = [
            0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x02, 0x00,
            0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,  // Orientation 6
            0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,  // and again
            0x00, 0x00, 0x00, 0x00,
        ]
        let filtered = try #require(EXIFFilter.forOutput(exif))
        #expect(filtered[18] == 1 && filtered[30] == 1)
    }

    @Test("An Orientation after a removed entry is 1 where it moved to")
    func filterTurnsMovedOrientation() throws {
        let exif: [UInt8] = [
            0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x02, 0x00,
            0x25, 0x88, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // GPSInfo (to nothing), removed
            0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x00,  // Orientation 6, moves up
            0x00, 0x00, 0x00, 0x00,
        ]
        let filtered = try #require(EXIFFilter.forOutput(exif))
        #expect(Array(filtered[8..<22]) == [0x01, 0x00, 0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00])
        #expect(filtered[22...].allSatisfy { $0 == 0 })
    }

    // MARK: - EXIF rights

    @Test("exifBlock holds Artist and Copyright, and reads back")
    func exifRoundTrip() throws {
        let rights = ImageRights(creators: ["Zoë Ångström", "Bo"], copyright: "© 2024 Zoë")
        let block = try #require(rights.exifBlock())
        #expect(block.starts(with: [0x49, 0x49, 0x2A, 0x00]))
        let tiff = try #require(TIFFBytes(block))
        #expect(try #require(tiff.directory(at: 8)).entries.map(\.tag) == [0x013B, 0x8298])
        #expect(ImageRights.read(exif: block) == rights)
        #expect(ImageRights(credit: "only in XMP and IPTC").exifBlock() == nil)
    }

    @Test("EXIF text that is not UTF-8 is read as Latin-1; the editor's copyright is kept")
    func exifLatin1() {
        var exif = TIFFFixture(littleEndian: false)
        let ifd0 = exif.appendIFD([(0x013B, 2, [0x5A, 0x6F, 0xEB, 0]),
                                   (0x8298, 2, Array("Photo Co\0Edit Co\0".utf8))])
        exif.set32(at: 4, UInt32(ifd0))
        let rights = ImageRights.read(exif: exif.bytes)
        #expect(rights.creators == ["Zoë"])
        #expect(rights.copyright == "Photo Co; Edit Co")
    }

    // MARK: - XMP

    @Test("xmpPacket reads back, with markup characters and non-ASCII text")
    func xmpRoundTrip() throws {
        let packet = try #require(Self.everything.xmpPacket())
        let text = try #require(String(validating: packet, as: UTF8.self))
        #expect(text.hasPrefix("<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>"))
        #expect(text.hasSuffix("<?xpacket end=\"w\"?>"))
        #expect(ImageRights.read(xmp: packet) == Self.everything)
        #expect(ImageRights().xmpPacket() == nil)
    }

    @Test("XMP is read by namespace, in attribute and element form, whatever the prefixes")
    func xmpForms() {
        let xmp = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <r:Description r:about="" xmlns:ps="http://ns.adobe.com/photoshop/1.0/" ps:Credit="A &amp; B&#x2019;s"
           xmlns:photoshop="http://example.com/not-photoshop/" photoshop:Source="wrong namespace">
         <d:creator xmlns:d="http://purl.org/dc/elements/1.1/"><r:Bag><r:li>Ann</r:li><r:li><![CDATA[<Bob>]]></r:li></r:Bag></d:creator>
         <d:rights xmlns:d="http://purl.org/dc/elements/1.1/"><r:Alt>
           <r:li xml:lang="fr">Droits</r:li><r:li xml:lang="x-default">Rights &#169;</r:li></r:Alt></d:rights>
         <!-- a comment --><AuthorsPosition xmlns="http://ns.adobe.com/photoshop/1.0/">Editor</AuthorsPosition>
         <xr:WebStatement xmlns:xr="http://ns.adobe.com/xap/1.0/rights/" r:resource="https://example.com/l"/>
         <xr:Marked xmlns:xr="http://ns.adobe.com/xap/1.0/rights/">False</xr:Marked>
        </r:Description></r:RDF></x:xmpmeta>
        """
        let rights = ImageRights.read(xmp: Array(xmp.utf8))
        #expect(rights == ImageRights(creators: ["Ann", "<Bob>"], copyright: "Rights ©", credit: "A & B’s",
                                      webStatement: "https://example.com/l", marked: false,
                                      creatorJobTitle: "Editor"))
    }

    @Test("Broken XMP gives what it can or nothing, and never traps",
          arguments: ["truncated", "deep", "unclosed quote", "doctype entity", "binary"])
    func xmpHostile(kind: String) {
        func packet(_ credit: String) -> [UInt8] {
            Array(("<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description "
                   + "xmlns:p=\"http://ns.adobe.com/photoshop/1.0/\" p:Credit=\"\(credit)\"/>").utf8)
        }
        var random = SplitMix(seed: 7)
        let (input, expected): ([UInt8], ImageRights) = switch kind {
        case "truncated": (packet("Cr") + Array("<rdf:Description><p:Source>Sou".utf8), ImageRights(credit: "Cr"))
        case "deep": (Array((String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)).utf8)
                      + packet("Cr"), ImageRights())
        case "unclosed quote": (packet("Cr") + Array(#"<rdf:Description p:Source="never closed"#.utf8),
                                ImageRights(credit: "Cr"))
        case "doctype entity": (Array(#"<!DOCTYPE x [<!ENTITY e "Bad">]>"#.utf8) + packet("&e;"), ImageRights(credit: "&e;"))
        default: ((0..<100_000).map { _ in UInt8(random.next(below: 256)) }, ImageRights())
        }
        #expect(ImageRights.read(xmp: input) == expected)
    }

    // MARK: - IPTC

    @Test("iptcBlock is a Photoshop APP13 payload with UTF-8 IIM, and reads back")
    func iptcRoundTrip() throws {
        let block = try #require(Self.everything.iptcBlock())
        #expect(block.starts(with: Array("Photoshop 3.0\u{0}8BIM".utf8) + [0x04, 0x04, 0, 0]))
        let size = block[22..<26].reduce(0) { $0 << 8 | Int($1) }
        #expect(block.count == 26 + size + size % 2)
        #expect(block[26..<37] == [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47, 0x1C, 2, 0][...])
        var expected = Self.everything
        expected.usageTerms = nil; expected.webStatement = nil; expected.marked = nil  // not in IIM
        #expect(ImageRights.read(iptc: block) == expected)
        #expect(ImageRights(usageTerms: "no IIM dataset").iptcBlock() == nil)
    }

    @Test("IIM values are cut to their maximum length between characters")
    func iptcTruncation() throws {
        let rights = ImageRights(creators: ["a" + String(repeating: "é", count: 20)],
                                 copyright: String(repeating: "c", count: 200), credit: String(repeating: "👍🏽", count: 9))
        let block = try #require(rights.iptcBlock())
        let read = ImageRights.read(iptc: block)
        #expect(read.creators == ["a" + String(repeating: "é", count: 15)])  // 31 bytes; one more is 33
        #expect(read.copyright == String(repeating: "c", count: 128))
        #expect(read.credit == String(repeating: "👍🏽", count: 4))  // 8 bytes each
    }

    @Test("Bare IIM from a TIFF: Latin-1 without 1:90, UTF-8 with it; damage ends the read")
    func iptcBareIIM() {
        let latin1: [UInt8] = [0x1C, 2, 80, 0, 3, 0x5A, 0x6F, 0xEB, 0x1C, 2, 80, 0, 3, 0x41, 0x6C, 0x66]
        #expect(ImageRights.read(iptc: latin1).creators == ["Zoë", "Alf"])
        let utf8: [UInt8] = [0x1C, 1, 90, 0, 3, 0x1B, 0x25, 0x47, 0x1C, 2, 116, 0, 4, 0x5A, 0x6F, 0xC3, 0xAB]
        #expect(ImageRights.read(iptc: utf8).copyright == "Zoë")
        let overlong: [UInt8] = [0x1C, 2, 110, 0, 2, 0x4F, 0x4B, 0x1C, 2, 115, 0xFF, 0xFF, 0x41]
        #expect(ImageRights.read(iptc: overlong) == ImageRights(credit: "OK"))
        let extended: [UInt8] = [0x1C, 2, 110, 0x80, 0x04, 0x7F, 0xFF, 0xFF, 0xFF, 0x41]
        #expect(ImageRights.read(iptc: extended).isEmpty)
    }

    @Test("The IIM resource is found after other 8BIM resources with names and odd sizes")
    func iptcAfterOtherResources() {
        let other = Array("8BIM".utf8) + [0x03, 0xED, 3, 0x61, 0x62, 0x63, 0, 0, 0, 3, 1, 2, 3, 0]
        let iim: [UInt8] = [0x1C, 2, 110, 0, 3, 0x43, 0x72, 0x64]
        let data = Array("Photoshop 3.0\0".utf8) + other + Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, 8] + iim
        #expect(ImageRights.read(iptc: data) == ImageRights(credit: "Crd"))
        #expect(ImageRights.read(iptc: Array(data.dropLast(3))).isEmpty)  // the resource overruns the blob
    }

    // MARK: - Merging

    @Test("Each field comes from XMP, else IPTC, else EXIF")
    func precedence() throws {
        let xmp = try #require(ImageRights(copyright: "  ", credit: "XMP credit").xmpPacket())
        let iptc = try #require(ImageRights(creators: ["IIM creator"], copyright: "IIM ©", credit: "IIM credit").iptcBlock())
        let exif = try #require(ImageRights(creators: ["EXIF artist"], copyright: "EXIF ©").exifBlock())
        #expect(ImageRights.read(exif: exif, xmp: xmp, iptc: iptc)
                == ImageRights(creators: ["IIM creator"], copyright: "IIM ©", credit: "XMP credit"))
        #expect(ImageRights.read(exif: exif) == ImageRights(creators: ["EXIF artist"], copyright: "EXIF ©"))
        #expect(ImageRights.read(exif: [], xmp: [], iptc: []).isEmpty)
        #expect(!ImageRights(marked: false).isEmpty)
    }

    // MARK: - Splicing

    @Test("A WebP chunk whose FourCC is not ASCII is refused, not rewritten longer (found by fuzzing)")
    func spliceRefusesNonASCIIFourCC() throws {
        func webp(_ fourCC: [UInt8]) -> Data {
            let chunks: [UInt8] = Array("VP8L".utf8) + [5, 0, 0, 0, 0x2F, 0, 0, 0, 0, 0] + fourCC + [2, 0, 0, 0, 0x61, 0x62]
            return Data(Array("RIFF".utf8) + [UInt8(chunks.count + 4), 0, 0, 0] + Array("WEBP".utf8) + chunks)
        }
        let metadata = OutputMetadata(exif: [0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00])
        #expect(MetadataSplicer.embedding(metadata, in: webp([0x49, 0x4E, 0xBF, 0xB2]), format: .webp) == nil)
        let spliced = try #require(MetadataSplicer.embedding(metadata, in: webp(Array("INFO".utf8)), format: .webp))
        #expect(spliced.count == 12 + 18 + 14 + 10 + 16)  // VP8X, VP8L (padded), INFO, EXIF
    }

    @Test("A JPEG APP0 whose length is under 2 is refused, not split by the blocks (found by fuzzing)")
    func spliceRefusesShortAPP0() {
        let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00, 0x00, 0x46, 0xFF, 0xD9])
        #expect(MetadataSplicer.embedding(OutputMetadata(xmp: Array("<x/>".utf8)), in: jpeg, format: .jpeg) == nil)
    }

    // MARK: - exiftool as an independent reader and writer

    @Test("exiftool reads the kept blocks: rights in IFD0, XMP and IPTC; no GPS, no IFD1",
          .enabled(if: ExifTool.isInstalled, "exiftool is not installed (Debian: libimage-exiftool-perl)"))
    func exiftoolReadsOutput() async throws {
        let filtered = try #require(EXIFFilter.forOutput(CameraEXIF(littleEndian: false).bytes))
        let xmp = try #require(Self.everything.xmpPacket())
        let iptc = try #require(Self.everything.iptcBlock())
        let tags = try await ExifTool.tags(of: JPEGSegments.inserting([
            JPEGSegments.segment(0xE1, TIFFBytes.exifPrefix + filtered),
            JPEGSegments.segment(0xE1, JPEGSegments.xmpSignature + xmp),
            JPEGSegments.segment(0xED, iptc),
        ], into: try Self.baseJPEG()))
        #expect(tags["IFD0:Artist"] as? String == "Jane Doe; John Roe")
        #expect(tags["IFD0:Orientation"] as? String == "Horizontal (normal)")
        #expect(tags["ExifIFD:DateTimeOriginal"] as? String == "2024:05:06 07:08:09")
        #expect(tags["XMP-dc:Creator"] as? [String] == Self.everything.creators)
        #expect(tags["XMP-dc:Rights"] as? String == Self.everything.copyright)
        #expect(tags["XMP-photoshop:Credit"] as? String == Self.everything.credit)
        #expect(tags["XMP-photoshop:AuthorsPosition"] as? String == Self.everything.creatorJobTitle)
        #expect(tags["XMP-xmpRights:UsageTerms"] as? String == Self.everything.usageTerms)
        #expect(tags["XMP-xmpRights:WebStatement"] as? String == Self.everything.webStatement)
        #expect(tags["XMP-xmpRights:Marked"] as? Bool == true)
        #expect(tags["IPTC:By-line"] as? [String] == Self.everything.creators)
        #expect(tags["IPTC:CopyrightNotice"] as? String == Self.everything.copyright)
        #expect(tags["IPTC:Credit"] as? String == Self.everything.credit)
        #expect(tags["IPTC:Source"] as? String == Self.everything.source)
        #expect(tags.keys.filter { $0.hasPrefix("GPS:") || $0.hasPrefix("IFD1:") || $0.contains("Warning") } == [])
        let block = try #require(Self.everything.exifBlock())
        let minimal = try await ExifTool.tags(of: JPEGSegments.inserting(
            [JPEGSegments.segment(0xE1, TIFFBytes.exifPrefix + block)], into: try Self.baseJPEG()))
        #expect(minimal["IFD0:Artist"] as? String == Self.everything.creators.joined(separator: "; "))
        #expect(minimal["IFD0:Copyright"] as? String == Self.everything.copyright)
        #expect(minimal.keys.filter { $0.contains("Warning") } == [])
    }

    @Test("What exiftool writes is read: XMP, IPTC in Latin-1 and EXIF, each field from its source",
          .enabled(if: ExifTool.isInstalled, "exiftool is not installed (Debian: libimage-exiftool-perl)"))
    func exiftoolWritesSource() async throws {
        let written = try await ExifTool.writing(["-XMP-dc:Creator=Ann", "-XMP-dc:Creator=Bo & Co",
                                                  "-XMP-photoshop:Credit=<Agency>", "-XMP-xmpRights:Marked=True",
                                                  "-IPTC:By-line=Zoë", "-IPTC:CopyrightNotice=© IIM",
                                                  "-IPTC:Source=Archive", "-EXIF:Artist=Exif Artist",
                                                  "-EXIF:Copyright=© EXIF"], into: try Self.baseJPEG())
        let segments = JPEGSegments.payloads(of: written)
        let xmp = try #require(segments.first { $0.marker == 0xE1 && $0.payload.starts(with: JPEGSegments.xmpSignature) })
            .payload.dropFirst(JPEGSegments.xmpSignature.count)
        let exif = try #require(segments.first { $0.marker == 0xE1 && $0.payload.starts(with: TIFFBytes.exifPrefix) }).payload
        let iptc = try #require(segments.first { $0.marker == 0xED }).payload
        #expect(ImageRights.read(xmp: Array(xmp)) == ImageRights(creators: ["Ann", "Bo & Co"], credit: "<Agency>", marked: true))
        #expect(ImageRights.read(iptc: iptc) == ImageRights(creators: ["Zoë"], copyright: "© IIM", source: "Archive"))
        #expect(ImageRights.read(exif: exif) == ImageRights(creators: ["Exif Artist"], copyright: "© EXIF"))
        #expect(ImageRights.read(exif: exif, xmp: Array(xmp), iptc: iptc)
                == ImageRights(creators: ["Ann", "Bo & Co"], copyright: "© IIM", credit: "<Agency>",
                               source: "Archive", marked: true))
    }

    // MARK: - Fixtures

    /// Every field set, with characters that need escaping or more than one byte.
    static let everything = ImageRights(
        creators: ["Zoë Ångström", "A & B <studio>"], copyright: "© 2024 \"Zoë\" & co.", credit: "Agence Ω",
        source: "Archive 'Nord'", usageTerms: "Editorial use only.\nNo resale.", webStatement: "https://example.com/licence?a=1&b=2",
        marked: true, creatorJobTitle: "Staff photographer")

    /// A small JPEG without metadata.
    static func baseJPEG() throws -> [UInt8] {
        Array(try RawImage(width: 8, height: 8) { _, _ in .white }.encoded(as: .jpeg))
    }

    /// Where `needle` first occurs in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// A TIFF structure written byte by byte, in either byte order: values longer than four bytes
/// go just before the table that refers to them, every piece at an even offset.
private struct TIFFFixture {
    let littleEndian: Bool
    private(set) var bytes: [UInt8]

    /// A header whose IFD0 offset is still 0.
    init(littleEndian: Bool) {
        self.littleEndian = littleEndian
        bytes = littleEndian ? [0x49, 0x49, 0x2A, 0, 0, 0, 0, 0] : [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 0]
    }

    func short(_ value: Int) -> [UInt8] {
        let pair = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
        return littleEndian ? pair.reversed() : pair
    }

    func long(_ value: UInt32) -> [UInt8] {
        let high = short(Int(value >> 16)), low = short(Int(value & 0xFFFF))
        return littleEndian ? low + high : high + low
    }

    /// Appends `data` at the next even offset, which is returned.
    mutating func append(_ data: [UInt8]) -> Int {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let offset = bytes.count
        bytes += data
        return offset
    }

    /// Appends an IFD of (tag, type, value in this byte order) entries and returns its offset;
    /// each entry's count is its value's length over its type's size.
    mutating func appendIFD(_ entries: [(tag: Int, type: Int, value: [UInt8])], next: UInt32 = 0) -> Int {
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1]
        let fields = entries.map { entry in entry.value.count <= 4
            ? entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
            : long(UInt32(append(entry.value))) }
        var table = short(entries.count)
        for (entry, field) in zip(entries, fields) {
            table += short(entry.tag) + short(entry.type) + long(UInt32(entry.value.count / (sizes[entry.type] ?? 1))) + field
        }
        return append(table + long(next))
    }

    /// Writes a four-byte number at `offset`.
    mutating func set32(at offset: Int, _ value: UInt32) {
        bytes.replaceSubrange(offset..<(offset + 4), with: long(value))
    }

    /// Where entry `index` of the IFD at `table` starts.
    static func entry(_ index: Int, of table: Int) -> Int { table + 2 + 12 * index }
}

/// A camera's EXIF: IFD0 (Make, Orientation 6, Artist, Copyright, the Exif and GPS pointers,
/// XPAuthor after them), an Exif IFD with a maker note, a GPS IFD and IFD1 with a thumbnail.
private struct CameraEXIF {
    static let xpAuthor: [UInt8] = [0x4A, 0, 0x61, 0, 0x6E, 0, 0x65, 0, 0, 0]  // "Jane" in UCS-2
    let gpsMarker = Array("SECRET-PLACE".utf8)
    let thumbnailMarker = Array("THUMBNAIL-PIXELS".utf8)
    let latitude: [UInt8]
    let bytes: [UInt8]
    let littleEndian: Bool
    let ifd0: Int
    /// Where IFD0's next-IFD offset, IFD1's, the GPS pointer's value and the GPS latitude's count are.
    let nextIFDField: Int, ifd1NextField: Int, gpsPointerField: Int, gpsLatitudeCountField: Int
    /// The Exif IFD's values and table.
    let exifIFDBytes: Range<Int>

    init(littleEndian: Bool, gps: Bool = true, thumbnail: Bool = true) {
        self.littleEndian = littleEndian
        var tiff = TIFFFixture(littleEndian: littleEndian)
        var ifd0Entries: [(tag: Int, type: Int, value: [UInt8])] = [
            (0x010F, 2, Array("TestCam\0".utf8)), (0x0112, 3, tiff.short(6)),
            (0x013B, 2, Array("Jane Doe; John Roe\0".utf8)), (0x8298, 2, Array("© Jane Doe\0".utf8)),
            (0x8769, 4, tiff.long(0)),
        ]
        if gps { ifd0Entries.append((0x8825, 4, tiff.long(0))) }
        ifd0Entries.append((0x9C9D, 1, Self.xpAuthor))
        ifd0 = tiff.appendIFD(ifd0Entries)
        tiff.set32(at: 4, UInt32(ifd0))
        nextIFDField = TIFFFixture.entry(ifd0Entries.count, of: ifd0)
        let exifStart = tiff.bytes.count
        let exifIFD = tiff.appendIFD([(0x9003, 2, Array("2024:05:06 07:08:09\0".utf8)),
                                      (0x927C, 7, Array("Maker note: offsets count from the TIFF header".utf8))])
        exifIFDBytes = exifStart..<tiff.bytes.count
        tiff.set32(at: TIFFFixture.entry(4, of: ifd0) + 8, UInt32(exifIFD))
        latitude = tiff.long(0x5EC2E7) + tiff.long(1) + tiff.long(0x1234) + tiff.long(1) + tiff.long(0x4321) + tiff.long(100)
        gpsPointerField = TIFFFixture.entry(5, of: ifd0) + 8
        var latitudeCount = 0
        if gps {
            let gpsIFD = tiff.appendIFD([(0x0000, 1, [2, 3, 0, 0]), (0x0001, 2, Array("N\0".utf8)),
                                         (0x0002, 5, latitude), (0x001B, 7, Array("ASCII\0\0\0".utf8) + gpsMarker)])
            tiff.set32(at: gpsPointerField, UInt32(gpsIFD))
            latitudeCount = TIFFFixture.entry(2, of: gpsIFD) + 4
        }
        gpsLatitudeCountField = latitudeCount
        var ifd1Next = 0
        if thumbnail {
            let data = tiff.append(Array(repeating: thumbnailMarker, count: 4).flatMap { $0 })
            let ifd1 = tiff.appendIFD([(0x0103, 3, tiff.short(6)), (0x0201, 4, tiff.long(UInt32(data))),
                                       (0x0202, 4, tiff.long(UInt32(4 * thumbnailMarker.count)))])
            tiff.set32(at: nextIFDField, UInt32(ifd1))
            ifd1Next = TIFFFixture.entry(3, of: ifd1)
        }
        ifd1NextField = ifd1Next
        bytes = tiff.bytes
    }

    /// The bytes with the four-byte number at `offset` replaced.
    func patching32(at offset: Int, _ value: UInt32) -> [UInt8] {
        var tiff = TIFFBytes(bytes)
        tiff?.setUInt32(Int(value), at: offset)
        return tiff?.bytes ?? []
    }
}

/// A small deterministic generator (SplitMix64) for damage and noise.
private struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(below bound: Int) -> Int {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Int((z ^ (z >> 31)) % UInt64(bound))
    }
}

/// JPEG segments put in after SOI, and read back up to the first scan.
private enum JPEGSegments {
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    static func inserting(_ segments: [[UInt8]], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg.prefix(2)) + segments.flatMap { $0 } + jpeg.dropFirst(2)
    }

    static func payloads(of jpeg: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var result: [(marker: UInt8, payload: [UInt8])] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA {
            let end = offset + 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
            guard end <= jpeg.count else { break }
            result.append((jpeg[offset + 1], Array(jpeg[(offset + 4)..<end])))
            offset = end
        }
        return result
    }
}

/// exiftool (Debian's libimage-exiftool-perl), run on files in a folder of the test's own.
private enum ExifTool {
    static let path = "/usr/bin/exiftool"
    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: path) }

    /// Every tag exiftool finds in `jpeg`, keyed `Group:Name` (`-j -G1 -a`).
    static func tags(of jpeg: [UInt8]) async throws -> [String: Any] {
        let json = try await OffPool.run { try inFolder { folder in
            let file = folder.appendingPathComponent("in.jpg")
            try Data(jpeg).write(to: file)
            return try run(["-j", "-G1", "-a", file.path], in: folder)
        } }
        let parsed = try JSONSerialization.jsonObject(with: json) as? [[String: Any]]
        return try #require(parsed?.first)
    }

    /// `jpeg` after exiftool has applied `assignments` (`-Group:Tag=value`) to it.
    static func writing(_ assignments: [String], into jpeg: [UInt8]) async throws -> [UInt8] {
        try await OffPool.run { try inFolder { folder in
            let input = folder.appendingPathComponent("in.jpg"), output = folder.appendingPathComponent("out.jpg")
            try Data(jpeg).write(to: input)
            _ = try run(["-q", "-o", output.path] + assignments + [input.path], in: folder)
            return Array(try Data(contentsOf: output))
        } }
    }

    private static func inFolder<T>(_ body: (URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rights-exiftool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// exiftool's standard output; output goes to a file so that no pipe can fill up.
    private static func run(_ arguments: [String], in folder: URL) throws -> Data {
        let stdout = folder.appendingPathComponent("stdout"), stderr = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: stdout)
        process.standardError = try FileHandle(forWritingTo: stderr)
        try process.run()
        process.waitUntilExit()
        let errors = String(decoding: (try? Data(contentsOf: stderr)) ?? Data(), as: UTF8.self)
        try #require(process.terminationStatus == 0, "exiftool \(arguments.joined(separator: " ")): \(errors)")
        return try Data(contentsOf: stdout)
    }
}
