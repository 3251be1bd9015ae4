import Foundation

/// A size in bytes as people write it: `123456`, `500M`, `2G`, `1.5T`. K, M, G and T are
/// powers of 1,024 (as `ulimit`, container limits and `du -h` read them), case aside; a
/// trailing B or iB is allowed. The one reader of sizes for cells and flags alike.
public enum ByteCount {
    /// The bytes `text` (whitespace around it aside) says; nil when it is not a size (a sign,
    /// an exponent, `inf`, an unknown unit).
    public static func parse(_ text: String) -> Int64? {
        let text = text.trimmingCharacters(in: .whitespaces)
        let number = text.prefix { ("0"..."9").contains($0) || $0 == "." }
        guard number.contains(where: { $0 != "." }), number.filter({ $0 == "." }).count <= 1,
              let value = Double(number) else { return nil }
        let unit = text.dropFirst(number.count).lowercased()
        let bare = unit.hasSuffix("ib") ? String(unit.dropLast(2)) : unit.hasSuffix("b") ? String(unit.dropLast()) : unit
        guard let power = ["": 0, "k": 1, "m": 2, "g": 3, "t": 4][bare] else { return nil }
        let bytes = (value * pow(1024, Double(power))).rounded(.down)
        return bytes < 9.0e18 ? Int64(bytes) : nil
    }
}
