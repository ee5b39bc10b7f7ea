import Foundation

/// Milliseconds since 1970: the unit of APNs' 410 `timestamp` and of times in the
/// configuration.
enum EpochMilliseconds {
    /// The latest time configuration accepts, 9999-12-31T23:59:59.999Z: the last an ISO-8601
    /// date-time can write, and far inside what `Int64` milliseconds hold.
    static let latest: Int64 = 253_402_300_799_999

    /// `date` in milliseconds. Dates past what `Int64` holds (±292 million years, reachable
    /// through the Swift API's `Date`) are clamped instead of trapping.
    static func of(_ date: Date, rounding rule: FloatingPointRoundingRule) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1000).rounded(rule)
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value)
    }
}
