import Foundation
import StrictJSON

/// Points in time in configuration JSON: an ISO-8601 date-time string, or an integer of
/// milliseconds since 1970 (the unit of APNs' 410 `timestamp`). Times are kept to the
/// millisecond, so they survive an encode and decode unchanged.
enum ConfigurationTime {
    static let expected = "expected an ISO-8601 date-time such as \"2024-05-01T12:00:00Z\" or milliseconds since 1970, "
        + "from 1970 to 9999"

    static func decode(_ value: JSONValue, path: String) throws(ConfigurationError) -> Date {
        switch value {
        case .integer(let milliseconds) where (0...EpochMilliseconds.latest).contains(milliseconds):
            return date(milliseconds: milliseconds)
        case .string(let text):
            guard let parsed = date(iso8601: text), case let milliseconds = milliseconds(parsed), (0...EpochMilliseconds.latest).contains(milliseconds) else {
                throw ConfigurationError(.invalidValue, path: path, "\(expected), \(JSONField.found(value))")
            }
            return date(milliseconds: milliseconds)
        default:
            throw ConfigurationError(.invalidValue, path: path, "\(expected), \(JSONField.found(value))")
        }
    }

    /// An ISO-8601 date-time with or without fractional seconds (the capture's `time` has
    /// microseconds), or nil.
    static func date(iso8601 text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// `2024-05-01T12:00:00.000Z`.
    static func encode(_ date: Date) -> JSONValue {
        let milliseconds = milliseconds(date)
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let wholeSeconds = Date(timeIntervalSince1970: Double(fraction < 0 ? seconds - 1 : seconds))
        let base = Date.ISO8601FormatStyle().format(wholeSeconds)  // ends in "Z"
        let digits = String(fraction < 0 ? fraction + 1000 : fraction)
        return .string(String(base.dropLast()) + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z")
    }

    static func milliseconds(_ date: Date) -> Int64 {
        // To the nearest: a time decoded from milliseconds comes back a hair under them.
        EpochMilliseconds.of(date, rounding: .toNearestOrAwayFromZero)
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
