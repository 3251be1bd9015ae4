/// HTTP dates (RFC 9110 §5.6.7), in the IMF-fixdate form every current server sends:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Read byte by byte rather than with `DateFormatter`: a header is whatever a server sends,
/// and swift-corelibs-foundation's `DateFormatter` traps ("Incorrect range CFRange") on some
/// non-ASCII text, which a single `Expires` header would turn into a crashed run (found by
/// `scripts/fuzz --parsers`, target `http-headers`).
enum HTTPDate {
    /// Seconds since 1970 for `text`, or nil when it is not an IMF-fixdate.
    static func parse(_ text: String) -> Double? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        let b = Array(bytes)
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20,
              b[16] == 0x20, b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20,
              Array(b[26...28]) == Array("GMT".utf8),
              weekdays.contains(Array(b[0...2])),
              let month = months.firstIndex(of: Array(b[8...10])).map({ $0 + 1 }),
              let day = number(b[5...6]), let year = number(b[12...15]),
              let hour = number(b[17...18]), let minute = number(b[20...21]), let second = number(b[23...24]),
              (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
                                 "Nov", "Dec"].map { Array($0.utf8) }

    /// The decimal number the ASCII digits spell, or nil when one is not a digit.
    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
