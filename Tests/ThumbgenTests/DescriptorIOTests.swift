import Foundation
import Testing
@testable import Thumbgen

/// The one loop every whole read and write on a descriptor goes through.
@Suite("DescriptorIO: whole reads and writes")
struct DescriptorIOTests {
    @Test("A write larger than a pipe's buffer arrives whole, and a read stops at the end")
    func throughPipe() throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }
        // Four times the usual 64 KiB pipe buffer: `write` must be called again for the rest.
        let sent = (0..<(256 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writer = Thread {
            _ = sent.withUnsafeBytes { DescriptorIO.writeAll(writeEnd, $0) }
            close(writeEnd)
        }
        writer.start()
        // One byte more than was sent: the read ends at the end of the file, with what came.
        var received = [UInt8](repeating: 0, count: sent.count + 1)
        let count = received.withUnsafeMutableBytes { DescriptorIO.readFully(readEnd, into: $0) }
        #expect(count == sent.count)
        #expect(Array(received.prefix(count)) == sent)
    }

    @Test("Nothing to write is written at once; a failed write says so")
    func emptyAndFailed() {
        #expect(DescriptorIO.writeAll(-1, UnsafeRawBufferPointer(start: nil, count: 0)))
        let bytes: [UInt8] = [1, 2, 3]
        #expect(!bytes.withUnsafeBytes { DescriptorIO.writeAll(-1, $0) })
        var buffer = [UInt8](repeating: 0, count: 3)
        #expect(buffer.withUnsafeMutableBytes { DescriptorIO.readFully(-1, into: $0) } == 0)
    }
}
