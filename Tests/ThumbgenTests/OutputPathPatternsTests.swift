import Foundation
import Testing
@testable import Thumbgen

/// `OutputPathPatterns`: the paths a dry run's rows of untold output may take, asked together.
@Suite("Output path patterns, asked together")
struct OutputPathPatternsTests {
    static func pattern(_ template: String, name: String) throws -> OutputPathPattern {
        try #require(OutputPathPattern(template: template, name: name, fit: .inside, row: 2))
    }

    @Test("A path may be produced when any pattern held renders to it, whatever its leading text; no other")
    func mayProduce() throws {
        var patterns = OutputPathPatterns()
        #expect(!patterns.mayProduce("hero.jpg"))
        for (template, name) in [("hero.jpg", "b"), ("{name}-{w}x{h}.{ext}", "cat"), ("thumbs/{name}/{w}.jpg", "dog"),
                                 ("{hash8}.webp", "cow"), ("{name}-{w}x{h}.{ext}", "cat")] {
            patterns.insert(try Self.pattern(template, name: name))
        }
        for path in ["hero.jpg", "cat-64x40.webp", "thumbs/dog/320.jpg", "0123abcd.webp"] {
            #expect(patterns.mayProduce(path), "\(path)")
        }
        for path in ["hero.png", "hero", "dog-64x40.webp", "thumbs/cat/320.jpg", "0123abcz.webp", "cat-64x40"] {
            #expect(!patterns.mayProduce(path), "\(path)")
        }
    }

    @Test("A union holds both sides' patterns")
    func union() throws {
        var hero = OutputPathPatterns()
        hero.insert(try Self.pattern("hero.jpg", name: "b"))
        var cat = OutputPathPatterns()
        cat.insert(try Self.pattern("{name}-{w}.png", name: "cat"))
        hero.formUnion(cat)
        #expect(hero.mayProduce("hero.jpg") && hero.mayProduce("cat-64.png") && !hero.mayProduce("dog-64.png"))
    }
}
