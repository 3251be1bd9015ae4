/// How a large reduction splits into a box shrink by whole factors and a kernel reduce of what
/// is left, the scheme `vips_resize` documents ("leave at least the final ×2 to the kernel"),
/// planned here because libvips 8.14's own `vips_resize` runs it 2 to 13 times slower than
/// the two operations called directly (measured on this machine, one thread, to 256 px: a
/// 5120×2880 PNG 229 ms against 52 ms, 1920×1200 73 ms against 8 ms).
///
/// Each factor is the largest whole number that divides its side exactly and is at most half
/// the axis' reduction: a block that overhangs the edge would be averaged over fewer pixels,
/// and the edge row or column then differs visibly (up to 38 levels, measured on a 3840×2160
/// source at factor 7); a whole divisor keeps the result within 1–7 levels of libvips' own and
/// as close to a plain Lanczos reduce. When no divisor comes within half of the wanted factor
/// (a side with few divisors), there is no plan and `vips_resize` runs as before.
struct BoxPreShrink: Equatable {
    /// The box factors, at least 1 each, not both 1.
    var horizontal: Int
    var vertical: Int

    /// The plan for reducing `width`×`height` to `targetWidth`×`targetHeight`, or nil when a
    /// plain `vips_resize` should run: no axis reduces by 4 or more, either axis grows, the
    /// kernel is `nearest` (it samples, it does not average), or a side has no usable divisor.
    init?(width: Int, height: Int, targetWidth: Int, targetHeight: Int, kernel: Kernel) {
        guard kernel != .nearest, targetWidth >= 1, targetHeight >= 1,
              targetWidth <= width, targetHeight <= height,
              let horizontal = Self.factor(side: width, target: targetWidth),
              let vertical = Self.factor(side: height, target: targetHeight),
              horizontal > 1 || vertical > 1 else { return nil }
        self.horizontal = horizontal
        self.vertical = vertical
    }

    /// The largest divisor of `side` at most `side / target / 2`, when it is at least half of
    /// that (1 when the axis reduces by less than 4); nil when none is.
    private static func factor(side: Int, target: Int) -> Int? {
        let wanted = side / target / 2
        guard wanted >= 2 else { return 1 }
        let found = (1...wanted).last { side % $0 == 0 } ?? 1
        return found * 2 >= wanted && found > 1 ? found : nil
    }
}
