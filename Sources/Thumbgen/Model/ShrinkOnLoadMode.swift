/// How far a JPEG may shrink while it decodes (libjpeg's DCT scaling by 2, 4 or 8) before the
/// kernel resamples what is left (column `shrink_on_load`). DCT scaling filters less well than the
/// kernel, so each mode trades some fidelity for decoding fewer pixels. Only JPEG sources are
/// affected: WebP and HEIF shrink on load with proper filters and need no headroom.
///
/// Measured against `exact`, on 100 photographic 800×500 JPEGs (PSNR of the 8-bit output,
/// median and worst): DCT ½ with no headroom (to 256 px) 53.2 and 39.5 dB, SSIM 0.9985 and 0.983;
/// ¼ (to 128–176 px) 49.8–52.3 and 33.1 dB; ⅛ (to 64–96 px) 40.7–43.0 and 27.2 dB, SSIM down
/// to 0.887: the ⅛ and ¼ scalings alias visibly on fine texture, the ½ one does not.
public enum ShrinkOnLoadMode: String, Sendable, CaseIterable, Codable {
    /// At least a factor of two is left to the kernel at every DCT factor, as `vips_thumbnail`
    /// and Pillow's `thumbnail` do.
    case exact
    /// DCT ½ is used as soon as the output is at most half the source (no headroom); ¼ and ⅛
    /// keep the headroom. The default: it decodes a quarter of the pixels for outputs a half
    /// to a quarter of their source, at a cost the measurement above puts below visibility.
    case balanced
    /// No headroom at any factor, as sharp's `fastShrinkOnLoad` (sharp's default).
    case fast
}
