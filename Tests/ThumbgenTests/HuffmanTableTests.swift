import CJPEGWriter
import CVips
import Foundation
import Testing
@testable import Thumbgen

/// thumbgen's `jpeg_gen_optimal_table` (`tg_huffman_table.c`): the tables of libjpeg-turbo's
/// own function, field for field, and the function libjpeg's encoders call in this process.
@Suite("Imaging: libjpeg's optimal Huffman tables, built faster")
struct HuffmanTableTests {
    /// A table: the symbols per code length (1–16) and the symbols in code order.
    struct Table: Equatable, CustomStringConvertible {
        var bits: [UInt8]
        var symbols: [UInt8]
        var description: String { "bits \(bits) symbols \(symbols)" }
    }

    /// The table built from `counts` (256 symbols) by thumbgen's function or libjpeg's own.
    static func table(_ counts: [Int], library: Bool) throws -> Table {
        var input = counts + [0]
        var bits = [UInt8](repeating: 0, count: 17)
        var huffval = [UInt8](repeating: 0, count: 256)
        guard tg_jpeg_huffman_table(&input, &bits, &huffval, library ? 1 : 0) == 0 else {
            throw FixtureError(library ? "libjpeg-turbo's jpeg_gen_optimal_table not found" : "no table")
        }
        let used = bits[1...].reduce(0) { $0 + Int($1) }
        return Table(bits: Array(bits[1...]), symbols: Array(huffval.prefix(min(used, 256))))
    }

    /// Counts shaped as an image's are (a few symbols common, a long tail) and as they are not
    /// (every symbol alike, one symbol against 256, counts that grow as Fibonacci's and force
    /// codes past 16 bits before the limit), drawn from `seed`.
    static func counts(seed: UInt64) -> [Int] {
        var generator = PlanPropertyTests.SeededGenerator(state: seed)
        var counts = [Int](repeating: 0, count: 256)
        switch seed % 6 {
        case 0:  // a DC table: up to 12 symbols
            for symbol in 0..<Int.random(in: 1...12, using: &generator) {
                counts[symbol] = Int.random(in: 0...5_000, using: &generator)
            }
        case 1:  // an AC table: a long tail over a random set of symbols
            for symbol in 0..<256 where Bool.random(using: &generator) {
                counts[symbol] = Int(100_000 / Double(Int.random(in: 1...400, using: &generator)))
            }
        case 2:  // equal counts over a random number of symbols (ties everywhere)
            let value = Int.random(in: 1...3, using: &generator)
            for symbol in 0..<Int.random(in: 1...256, using: &generator) { counts[symbol] = value }
        case 3:  // Fibonacci counts: the pure procedure's codes run past 16 bits
            var (a, b) = (1, 1)
            for symbol in (0..<Int.random(in: 20...40, using: &generator)).map({ ($0 * 7) % 256 }) {
                counts[symbol] = a
                (a, b) = (b, min(a + b, 400_000_000))
            }
        case 4:  // one symbol holding most of the count, the rest once each
            for symbol in 0..<256 { counts[symbol] = 1 }
            counts[Int.random(in: 0..<256, using: &generator)] = 1 << 20
        default:  // anything
            for symbol in 0..<256 {
                counts[symbol] = Bool.random(using: &generator) ? 0 : Int.random(in: 1...1_000_000, using: &generator)
            }
        }
        return counts
    }

    @Test("Every table is libjpeg-turbo's own, over 6,000 sets of counts and the edge cases")
    func sameTables() throws {
        var cases = (0..<6_000).map { Self.counts(seed: UInt64($0)) }
        cases.append([Int](repeating: 0, count: 256))                    // the pseudo-symbol alone
        cases.append((0..<256).map { $0 == 7 ? 1 : 0 })                  // one symbol
        cases.append([Int](repeating: 1, count: 256))                    // all 256, equal
        cases.append((0..<256).map { $0 == 0 ? 1_000 : 1 })              // 256 codes of 9 bits
        cases.append((0..<256).map { $0 < 2 ? 1_100_000_000 : $0 })      // counts past libjpeg's ceiling
        cases.append((0..<256).map { $0 < 30 ? 1 << $0 : 0 })            // the deepest tree below the ceiling (30 levels)
        var longest = 0
        for (index, counts) in cases.enumerated() {
            let mine = try Self.table(counts, library: false)
            let theirs = try Self.table(counts, library: true)
            #expect(mine == theirs, "case \(index): counts \(counts.enumerated().filter { $0.element != 0 })")
            if mine != theirs { return }
            longest = max(longest, (mine.bits.lastIndex { $0 != 0 } ?? 0) + 1)
        }
        #expect(longest == 16, "the Fibonacci counts must reach the 16-bit limit")
    }

    @Test("libjpeg's encoders call thumbgen's function: the direct writer and jpegsave")
    func encodersCallIt() throws {
        try VipsRuntime.start()
        VipsRuntime.setThreadsPerImage(1)
        let image = try JPEGWriterTests.image(width: 64, height: 48, grey: false)
        defer { tg_unref(image) }
        let before = tg_jpeg_huffman_tables_built()
        #expect(JPEGWriterTests.direct(image, quality: 80, progressive: false).status == 0)
        let afterWriter = tg_jpeg_huffman_tables_built()
        // Four tables a baseline colour JPEG: DC and AC, for luma and for chroma. Other tests
        // encode at the same time, so only at least.
        #expect(afterWriter - before >= 4)
        _ = try JPEGWriterTests.jpegsave(image, quality: 80, progressive: true)
        #expect(tg_jpeg_huffman_tables_built() - afterWriter >= 4)
    }
}
