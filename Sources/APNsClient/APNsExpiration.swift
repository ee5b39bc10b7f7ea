import Foundation

/// The `apns-expiration` header: until when APNs keeps trying to deliver a push.
///
/// ```swift
/// APNsExpiration.immediately                 // 0: one attempt, never stored
/// APNsExpiration.at(Date() + 3600)           // keep trying for an hour
/// ```
public struct APNsExpiration: Sendable, Hashable {
    /// Seconds since 1970, as sent; 0 means deliver once or drop.
    public var unixSeconds: Int64

    /// An expiration at `unixSeconds` (seconds since 1970).
    public init(unixSeconds: Int64) {
        self.unixSeconds = unixSeconds
    }

    /// 0: APNs tries once and does not store the push.
    public static let immediately = APNsExpiration(unixSeconds: 0)

    /// An expiration at `date`, rounded down to the second.
    public static func at(_ date: Date) -> APNsExpiration {
        APNsExpiration(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
