import Foundation

/// HTTP dates (RFC 9110 §5.6.7): all three forms a recipient must accept, the IMF-fixdate
/// every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`), the obsolete RFC 850 form
/// (`Sunday, 06-Nov-94 08:49:37 GMT`) and C's asctime form (`Sun Nov  6 08:49:37 1994`); and
/// IMF-fixdate written, the one form a sender may send.
///
/// Read byte by byte rather than with `DateFormatter`: a header is whatever a server sends,
/// and swift-corelibs-foundation's `DateFormatter` traps ("Incorrect range CFRange") on some
/// non-ASCII text, which a single `Expires` header would turn into a crashed run (found by
/// `scripts/fuzz --parsers`, target `http-headers`). libcurl's `curl_getdate` would read these
/// too, but it takes far more than dates, and this stays fuzzable without libcurl.
enum HTTPDate {
    /// Seconds since 1970 for `text`, or nil when it is none of the three forms. An RFC 850
    /// two-digit year is the one of that century's years, this one or the last, that is not
    /// more than 50 years ahead of `now` (RFC 9110's rule).
    static func parse(_ text: String, now: Double = Date().timeIntervalSince1970) -> Double? {
        var bytes = Array(text.utf8)[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        let b = Array(bytes)
        if let date = imfFixdate(b) ?? asctime(b) { return date }
        return rfc850(b, now: now)
    }

    /// `seconds` since 1970 as an IMF-fixdate; nil before year 1 or after 9999.
    static func format(_ seconds: Double) -> String? {
        guard seconds.isFinite, seconds > -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let time = whole - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday: index 3 from Monday
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let yearText = String(repeating: "0", count: 4 - String(year).count) + String(year)
        return "\(String(decoding: weekdays[weekday], as: UTF8.self)), \(two(day)) "
            + "\(String(decoding: months[month - 1], as: UTF8.self)) \(yearText) "
            + "\(two(time / 3_600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT`.
    private static func imfFixdate(_ b: [UInt8]) -> Double? {
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20,
              Array(b[26...28]) == Array("GMT".utf8), weekdays.contains(Array(b[0...2])),
              let month = months.firstIndex(of: Array(b[8...10])).map({ $0 + 1 }),
              let day = number(b[5...6]), let year = number(b[12...15])
        else { return nil }
        return seconds(year: year, month: month, day: day, time: b[16...25])
    }

    /// `Sunday, 06-Nov-94 08:49:37 GMT`.
    private static func rfc850(_ b: [UInt8], now: Double) -> Double? {
        guard let comma = b.firstIndex(of: UInt8(ascii: ",")), longWeekdays.contains(Array(b[..<comma])),
              b.count == comma + 24 else { return nil }
        let d = Array(b[(comma + 1)...])
        guard d[0] == 0x20, d[3] == UInt8(ascii: "-"), d[7] == UInt8(ascii: "-"), d[10] == 0x20,
              Array(d[20...22]) == Array("GMT".utf8),
              let month = months.firstIndex(of: Array(d[4...6])).map({ $0 + 1 }),
              let day = number(d[1...2]), let twoDigits = number(d[8...9])
        else { return nil }
        let thisYear = civil(fromDays: Int((now / 86_400).rounded(.down))).year
        var year = thisYear - thisYear % 100 + twoDigits
        if year > thisYear + 50 { year -= 100 }
        return seconds(year: year, month: month, day: day, time: d[10...19])
    }

    /// `Sun Nov  6 08:49:37 1994`: the day two digits or a space and one.
    private static func asctime(_ b: [UInt8]) -> Double? {
        guard b.count == 24, b[3] == 0x20, b[7] == 0x20, b[19] == 0x20, weekdays.contains(Array(b[0...2])),
              let month = months.firstIndex(of: Array(b[4...6])).map({ $0 + 1 }),
              let day = number(b[8] == 0x20 ? b[9...9] : b[8...9]), let year = number(b[20...23])
        else { return nil }
        return seconds(year: year, month: month, day: day, time: b[10...19])
    }

    /// The date with its time, ` HH:MM:SS ` (the spaces around it included), checked.
    private static func seconds(year: Int, month: Int, day: Int, time t: ArraySlice<UInt8>) -> Double? {
        let s = t.startIndex
        guard t[s] == 0x20, t[s + 3] == UInt8(ascii: ":"), t[s + 6] == UInt8(ascii: ":"), t[s + 9] == 0x20,
              let hour = number(t[(s + 1)...(s + 2)]), let minute = number(t[(s + 4)...(s + 5)]),
              let second = number(t[(s + 7)...(s + 8)]),
              (1...daysIn(month, of: year)).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
    }

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].map { Array($0.utf8) }
    private static let longWeekdays = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday",
                                        "Sunday"].map { Array($0.utf8) }
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

    /// The date `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
