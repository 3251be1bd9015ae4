// swift-tools-version: 6.0
import PackageDescription

/// thumbgen: a batch thumbnailer. A library (`Thumbgen`, the pipeline) and a thin CLI
/// (`thumbgen`) over it; libvips, libcurl, SQLite and gumbo (an HTML5 parser) are reached only through the
/// `CVips`, `CCurl`, `CSQLite` and `CGumbo` system libraries, and the Linux calls Swift cannot make (prctl, seccomp) through `CSystem`;
/// five C targets hold the only C source files: `CJPEGWriter`, a JPEG writer that needs
/// libjpeg's setjmp errors (and libjpeg's optimal Huffman tables, built faster), `CJPEGScale`, one entropy decode of a JPEG shared by every DCT
/// scale made from it (libjpeg's own reduced IDCTs, which only C can call), `CWebPScale`,
/// one decode of a lossy WebP shared by every size made from it (an area average per size, a
/// loop Swift would run slower), `CPNGDecode`, a PNG's pixels inflated whole by libdeflate
/// (which libvips loads already, through libtiff) with its row filters undone in vector code,
/// and `CResample`, libvips 8.14's downsizing of pixels in memory with its exact arithmetic
/// but without building its operations.
let package = Package(
    name: "thumbgen",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "thumbgen", targets: ["ThumbgenCLI"]),
        .library(name: "Thumbgen", targets: ["Thumbgen"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CVips",
            pkgConfig: "vips",
            providers: [.apt(["libvips-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .systemLibrary(name: "CSystem"),
        .systemLibrary(
            name: "CGumbo",
            pkgConfig: "gumbo",
            providers: [.apt(["libgumbo-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "CJPEGWriter",
            dependencies: ["CVips"],
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        .target(
            name: "CJPEGScale",
            linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("m")]
        ),
        .target(
            name: "CResample",
            linkerSettings: [.linkedLibrary("m")]
        ),
        .target(
            name: "CWebPScale",
            linkerSettings: [.linkedLibrary("webp")]
        ),
        .target(
            name: "CPNGDecode",
            linkerSettings: [.linkedLibrary("deflate")]
        ),
        .target(
            name: "Thumbgen",
            dependencies: [
                "CVips",
                "CJPEGWriter",
                "CJPEGScale",
                "CResample",
                "CWebPScale",
                "CPNGDecode",
                "CCurl",
                "CSystem",
                "CSQLite",
                "CGumbo",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "ThumbgenCLI",
            dependencies: [
                "Thumbgen",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(
            name: "LibraryExample",
            dependencies: ["Thumbgen"],
            path: "examples/LibraryExample"
        ),
        .testTarget(
            name: "ThumbgenTests",
            dependencies: ["Thumbgen", "CVips", "CSystem", "CJPEGWriter", "CJPEGScale", "CWebPScale", "CPNGDecode"],
            exclude: ["Support/fault_server.py", "Support/moto_server.py"]
        ),
    ]
)
