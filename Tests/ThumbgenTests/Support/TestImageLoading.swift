import CVips
import Foundation
@testable import Thumbgen

/// Opens a file with the loader its magic bytes name, as thumbgen does (libvips' own
/// `vips_image_new_from_file` would run every loader's sniffer, blocked ones included).
/// `allPages` loads every frame; it is nil when the format has no frames to load.
func testLoadImage(_ path: String, access: VipsAccess, failOn: VipsFailOn,
                   allPages: Bool = false) -> UnsafeMutablePointer<VipsImage>? {
    try? VipsRuntime.start()
    guard let loader = VipsRuntime.loader(for: path) else { return nil }
    return allPages ? tg_load_with_all_pages(loader, path, Int32(access.rawValue), Int32(failOn.rawValue))
        : tg_load_with(loader, path, Int32(access.rawValue), Int32(failOn.rawValue))
}
