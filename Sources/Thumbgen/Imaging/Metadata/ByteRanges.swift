/// Sets of byte ranges, sorted and merged, so that overlaps are found and bytes are zeroed in
/// time that grows with the number of ranges, not with their lengths.
///
/// A hostile IFD may point thousands of entries at the same large span; touching each span once
/// per entry would be quadratic, merging first keeps it near linear.
enum ByteRanges {
    /// `ranges` without empty ones, sorted, with overlapping or touching ranges joined.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        for range in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = result.last, range.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                result.append(range)
            }
        }
        return result
    }

    /// Whether some byte lies in both sets; both must come from `merged(_:)`.
    static func overlap(_ first: [Range<Int>], _ second: [Range<Int>]) -> Bool {
        var i = 0, j = 0
        while i < first.count, j < second.count {
            if first[i].overlaps(second[j]) { return true }
            if first[i].upperBound <= second[j].lowerBound { i += 1 } else { j += 1 }
        }
        return false
    }
}
