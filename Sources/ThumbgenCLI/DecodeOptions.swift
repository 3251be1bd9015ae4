import ArgumentParser
import Thumbgen

extension ShrinkOnLoadMode: ExpressibleByArgument {}

/// Flags that choose how sources are decoded, where that changes output pixels (so they are
/// part of every output's cache key).
struct DecodeOptions: ParsableArguments {
    @Option(help: "How far JPEG sources shrink while they decode: exact (leave the kernel a factor of two, as vipsthumbnail), balanced (also halve with no headroom; about 20% faster on sources 2–4 times the output) or fast (no headroom at all, as sharp's fastShrinkOnLoad; can alias on fine texture).")
    var shrinkOnLoad = ShrinkOnLoadMode.balanced
}
