import Foundation
import Testing
@testable import Thumbgen

/// `SourceResolver`'s check for paths already standard, against its definition.
@Suite("SourceResolver")
struct SourceResolverTests {
    @Test("A path is standard when no component but the first is empty, . or ..",
          arguments: ["/a/b.png", "/a/", "/", "/a//b", "/a/./b", "/a/../b", "/a/.b", "/a/...", "/a/b..",
                      "/.", "/..", "/a/.", "/a/..", "a/b", "abc", "/é/ñ.png", "//a"])
    func standard(_ path: String) {
        let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        let expected = !components.contains { $0.isEmpty || $0.elementsEqual(".".utf8) || $0.elementsEqual("..".utf8) }
        #expect(SourceResolver.isStandard(path) == expected)
    }
}
