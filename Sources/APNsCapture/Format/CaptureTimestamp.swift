import StrictJSON
import Synchronization

/// The capture's time format: RFC 3339 in UTC with exactly six fractional digits,
/// `2026-03-01T12:34:56.789012Z`, converted by hand from and to microseconds since 1970.
///
/// Hand-written because the capture formats one time per push: Foundation's ISO 8601
/// formatter costs microseconds and allocates, and this fixed layout needs no parsing options.
package enum CaptureTimestamp {
    /// The length of every formatted time.
    static let length = 27

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999Z: the years four digits can hold.
    private static let minimumMicroseconds: Int64 = -62_135_596_800_000_000
    private static let maximumMicroseconds: Int64 = 253_402_300_799_999_999
    private static let microsecondsPerDay: Int64 = 86_400_000_000

    /// Appends the time, clamped to the years 1...9999.
    static func write(microseconds: Int64, into output: inout TextBuffer) {
        let clamped = min(max(microseconds, minimumMicroseconds), maximumMicroseconds)
        let (second, fraction) = floorDivide(clamped, 1_000_000)
        output.write(atMost: length) { out in
            writeDateAndTime(second: second, at: out)
            out[19] = UInt8(ascii: ".")
            putDigits(fraction, count: 6, at: out + 20)
            out[26] = UInt8(ascii: "Z")
            return length
        }
    }

    /// The last second formatted, as the 24 bytes from its start (the 19 of
    /// `2026-03-01T12:34:56` and 5 that the fraction overwrites): a server records many
    /// pushes per second, and the calendar arithmetic cost more than the rest of the time.
    private struct FormattedSecond {
        var second: Int64
        var text: (UInt64, UInt64, UInt64)
    }

    private static let lastSecond = Mutex(FormattedSecond(second: .min, text: (0, 0, 0)))

    /// Writes `2026-03-01T12:34:56` for `second` (since 1970) at `out`, which has room for 24 bytes.
    private static func writeDateAndTime(second: Int64, at out: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(out)
        let cached = lastSecond.withLock { last in
            guard last.second == second else { return false }
            raw.storeBytes(of: last.text.0, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: last.text.1, toByteOffset: 8, as: UInt64.self)
            raw.storeBytes(of: last.text.2, toByteOffset: 16, as: UInt64.self)
            return true
        }
        if cached { return }
        let (days, secondOfDay) = floorDivide(second, 86_400)
        let (year, month, day) = civil(fromDays: days)
        putDigits(year, count: 4, at: out)
        out[4] = UInt8(ascii: "-")
        putDigits(month, count: 2, at: out + 5)
        out[7] = UInt8(ascii: "-")
        putDigits(day, count: 2, at: out + 8)
        out[10] = UInt8(ascii: "T")
        putDigits(secondOfDay / 3600, count: 2, at: out + 11)
        out[13] = UInt8(ascii: ":")
        putDigits(secondOfDay / 60 % 60, count: 2, at: out + 14)
        out[16] = UInt8(ascii: ":")
        putDigits(secondOfDay % 60, count: 2, at: out + 17)
        let text = (
            raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
            raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)
        )
        lastSecond.withLock { $0 = FormattedSecond(second: second, text: text) }
    }

    /// The time as text, for messages and tests.
    package static func string(microseconds: Int64) -> String {
        var output = TextBuffer(capacity: length)
        write(microseconds: microseconds, into: &output)
        return output.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Parses exactly the layout `write` produces; nil for anything else.
    package static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == length, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[26] == UInt8(ascii: "Z"),
            let year = digits(bytes, 0, 4), let month = digits(bytes, 5, 2), let day = digits(bytes, 8, 2),
            let hour = digits(bytes, 11, 2), let minute = digits(bytes, 14, 2), let second = digits(bytes, 17, 2),
            let fraction = digits(bytes, 20, 6),
            year >= 1, (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let days = self.days(fromCivilYear: year, month: month, day: day)
        return days * microsecondsPerDay + ((hour * 60 + minute) * 60 + second) * 1_000_000 + fraction
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = value / divisor
        var remainder = value % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }

    /// Howard Hinnant's `civil_from_days`: the proleptic Gregorian date `days` after 1970-01-01.
    private static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Howard Hinnant's `days_from_civil`, the inverse of `civil(fromDays:)`.
    private static func days(fromCivilYear civilYear: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? civilYear - 1 : civilYear
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Writes the last `count` decimal digits of a non-negative `value`, zero-padded.
    private static func putDigits(_ value: Int64, count: Int, at out: UnsafeMutablePointer<UInt8>) {
        var rest = value
        for position in stride(from: count - 1, through: 0, by: -1) {
            out[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
        }
    }

    private static func digits(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int64? {
        var value: Int64 = 0
        for byte in bytes[start..<start + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }
}
