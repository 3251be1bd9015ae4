import Foundation
import Testing
@testable import Thumbgen

/// `PathText` gives what `NSString` gives, for ordinary names and odd ones.
@Suite("PathText")
struct PathTextTests {
    static let paths = [
        "/a/b/c.png", "/a/b/c", "/a/b/.png", "/a/b/c.", "/a/b/c.tar.gz", "/a/b/c..png", "/a/b/-c_d.PNG",
        "/a/b/c.p g", "/a/b/", "c.png", "/x/.a.b", "/x/a.b/", "{name}-{w}x{h}.png", "{name}.{ext}",
        "a.PnG", "/a/b c.png", "/é/ñ.jpeg", "/a//b.webp", "", "/", ".", "..", "/a/b.c/d", "日本.avif",
    ]

    @Test("Stems and extensions match NSString's", arguments: paths)
    func matchesNSString(_ path: String) {
        let last = (path as NSString).lastPathComponent
        #expect(PathText.stem(of: path) == (last as NSString).deletingPathExtension)
        #expect(PathText.pathExtension(of: path) == (path as NSString).pathExtension)
    }

    @Test("Byte search finds what Foundation's contains finds")
    func containsBytes() {
        for (text, needle) in [("a//b", "//"), ("a/b", "//"), ("{row}.png", "{row}"), ("{ro}w}", "{row}"),
                               ("", "x"), ("x", ""), ("./a", "/./"), ("a/./b", "/./")] {
            #expect(text.containsBytes(needle) == (needle.isEmpty || text.contains(needle)), "\(text) \(needle)")
        }
    }
}
