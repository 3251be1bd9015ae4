import Foundation
import Thumbgen

/// A folder of photos as people have them, made for the folder-input tests under `photos/`
/// in `folder`:
///
///     photos/cover.png                       an image
///     photos/fake.jpg                        text with an image's extension
///     photos/notes.txt                       text
///     photos/link.png -> cover.png           a symbolic link to an image
///     photos/.dot.png                        a hidden image
///     photos/.hidden/secret.png              an image in a hidden folder
///     photos/2024/back -> ..                 a symbolic link loop
///     photos/2024/broken.png                 text with an image's extension
///     photos/2024/Été à Paris/beach day.jpg  spaces and UTF-8 in the names
///     photos/2024/Été à Paris/scan           a PNG without an extension
enum PhotoTree {
    /// The images a walk takes, in its order, relative to `photos/`.
    static let images = ["2024/Été à Paris/beach day.jpg", "2024/Été à Paris/scan", "cover.png"]

    /// Makes the tree in `folder`; returns the `photos` folder.
    @discardableResult
    static func make(in folder: TemporaryDirectory) throws -> URL {
        let photos = folder.file("photos")
        try folder.write(try RawImage.quadrants(width: 120, height: 80).encoded(as: .png), to: "photos/cover.png")
        try folder.write("not a jpeg\n", to: "photos/fake.jpg")
        try folder.write("notes\n", to: "photos/notes.txt")
        try folder.write(try RawImage.quadrants(width: 40, height: 40).encoded(as: .png), to: "photos/.dot.png")
        try folder.write(try RawImage.quadrants(width: 40, height: 40).encoded(as: .png), to: "photos/.hidden/secret.png")
        try folder.write("<svg/>", to: "photos/2024/broken.png")
        let paris = "photos/2024/Été à Paris/"
        try folder.write(try RawImage.quadrants(width: 160, height: 100, [.green, .blue, .yellow, .red])
            .encoded(as: .jpeg), to: paris + "beach day.jpg")
        try folder.write(try RawImage.quadrants(width: 90, height: 60, [.blue, .red, .green, .yellow])
            .encoded(as: .png), to: paris + "scan")
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("link.png").path,
                                                   withDestinationPath: "cover.png")
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("2024/back").path,
                                                   withDestinationPath: "..")
        return photos
    }
}
