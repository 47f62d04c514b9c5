/// UTC calendar arithmetic (proleptic Gregorian), without Foundation's calendars or locale data.
/// The service's log lines take their timestamps from it too: glibc's `gmtime_r` takes a lock
/// the whole process shares, once per request line.
package struct CivilTime: Equatable {
    package var year: Int
    package var month: Int      // 1…12
    package var day: Int        // 1…31
    package var hour: Int
    package var minute: Int
    package var second: Int
    package var millisecond: Int
    var weekday: Int    // 0 = Sunday
    var dayOfYear: Int  // 1…366

    /// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// The UTC civil time of `seconds` (+ `millisecond`) since the epoch.
    package init(epochSeconds seconds: Int64, millisecond: Int = 0) {
        let s = Int(seconds)
        var days = s / 86400
        var rem = s % 86400
        if rem < 0 { rem += 86400; days -= 1 }
        hour = rem / 3600
        minute = rem % 3600 / 60
        second = rem % 60
        self.millisecond = millisecond
        weekday = ((days % 7) + 11) % 7   // 1970-01-01 was a Thursday (4)
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = month <= 2 ? y + 1 : y
        dayOfYear = CivilTime.days(year: year, month: month, day: day) - CivilTime.days(year: year, month: 1, day: 1) + 1
    }

    /// Parses ISO-8601 `YYYY-MM-DD[(T| )HH:MM[:SS[.fff…]]][Z|±HH:MM|±HHMM|±HH]` to UTC epoch
    /// seconds and milliseconds (fraction digits past the third are dropped). A time without
    /// offset is UTC. A date without time is midnight UTC and `dateOnly`: a calendar day, which
    /// the `date` formatter writes as it is, in any time zone.
    static func parseISO8601(_ text: String) -> (seconds: Int64, millisecond: Int, dateOnly: Bool)? {
        // Read in place (a copy into an array was a fifth of a row's `date` formatting).
        var text = text
        return text.withUTF8 { parseISO8601(utf8: $0) }
    }

    private static func parseISO8601(utf8 u: UnsafeBufferPointer<UInt8>) -> (seconds: Int64, millisecond: Int, dateOnly: Bool)? {
        var i = 0
        func num(_ n: Int) -> Int? {
            guard i + n <= u.count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = u[i + k]
                guard c >= 0x30 && c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < u.count, u[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = num(4), expect(0x2D), let month = num(2), expect(0x2D), let day = num(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        var h = 0, m = 0, s = 0, ms = 0, offset = 0
        let dateOnly = i == u.count
        if i < u.count {
            guard u[i] == UInt8(ascii: "T") || u[i] == UInt8(ascii: "t") || u[i] == 0x20 else { return nil }
            i += 1
            guard let hh = num(2), expect(0x3A), let mm = num(2) else { return nil }
            h = hh; m = mm
            if expect(0x3A) {
                guard let ss = num(2) else { return nil }
                s = ss
                if i < u.count, u[i] == UInt8(ascii: ".") || u[i] == UInt8(ascii: ",") {
                    i += 1
                    var digits = 0
                    var frac = 0
                    while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
                        if digits < 3 { frac = frac * 10 + Int(u[i] - 0x30) }
                        digits += 1
                        i += 1
                    }
                    guard digits > 0 else { return nil }
                    var d = digits
                    while d < 3 { frac *= 10; d += 1 }
                    ms = frac
                }
            }
            guard h < 24 || (h == 24 && m == 0 && s == 0), m < 60, s < 61 else { return nil }
            if i < u.count {
                if u[i] == UInt8(ascii: "Z") || u[i] == UInt8(ascii: "z") {
                    i += 1
                } else if u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
                    let sign = u[i] == UInt8(ascii: "-") ? -1 : 1
                    i += 1
                    guard let oh = num(2) else { return nil }
                    var om = 0
                    if i < u.count {
                        _ = expect(0x3A)
                        guard let minutes = num(2) else { return nil }
                        om = minutes
                    }
                    guard oh < 24, om < 60 else { return nil }
                    offset = sign * (oh * 3600 + om * 60)
                } else {
                    return nil
                }
            }
        }
        guard i == u.count else { return nil }
        let secs = days(year: year, month: month, day: day) * 86400 + h * 3600 + m * 60 + s - offset
        return (Int64(secs), ms, dateOnly)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
