import CVips
import Foundation
@testable import Thumbgen

extension VipsImageRef {
    /// The image's pixels, evaluated, as bytes: what tests compare byte for byte.
    func rawPixels() throws -> Data {
        var length = 0
        guard let memory = vips_image_write_to_memory(pointer, &length) else {
            throw FixtureError("vips_image_write_to_memory")
        }
        defer { g_free(memory) }
        return Data(bytes: memory, count: length)
    }
}
