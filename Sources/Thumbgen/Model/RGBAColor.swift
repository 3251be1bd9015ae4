/// An sRGB colour with alpha, written `#rrggbb` or `#rrggbbaa` (the `background` column).
public struct RGBAColor: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// The 8-bit components; alpha 255 is opaque.
    public var red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8

    /// White, the default background.
    public static let white = RGBAColor(red: 255, green: 255, blue: 255, alpha: 255)

    /// Makes a colour from its four 8-bit components.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red; self.green = green; self.blue = blue; self.alpha = alpha
    }

    /// Parses `#rrggbb` or `#rrggbbaa` (case-insensitive); nil for anything else.
    public init?(hex: String) {
        guard hex.hasPrefix("#") else { return nil }
        let digits = hex.dropFirst()
        guard digits.count == 6 || digits.count == 8, digits.allSatisfy(\.isHexDigit),
              let value = UInt32(digits, radix: 16) else {
            return nil
        }
        let full = digits.count == 6 ? (value << 8) | 0xff : value
        self.init(red: UInt8(full >> 24), green: UInt8((full >> 16) & 0xff),
                  blue: UInt8((full >> 8) & 0xff), alpha: UInt8(full & 0xff))
    }

    /// The canonical `#rrggbbaa` form, used in cache identifiers.
    public var description: String {
        func hex(_ v: UInt8) -> String { String(v, radix: 16).leftPadded(to: 2) }
        return "#" + hex(red) + hex(green) + hex(blue) + hex(alpha)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
