import Foundation
internal import SystemSeam

/// The default clock of ``APNsProviderTokenVerifier``: the system's wall clock at
/// millisecond-ish resolution.
///
/// Token rules count whole seconds and minutes, and a precise `clock_gettime` costs about
/// as much as the rest of a cached-token check, so the coarse clock is used where the
/// platform has one.
enum CoarseWallClock {
    static func now() -> Date {
        #if os(Linux)
        var time = timespec()
        if clock_gettime(CLOCK_REALTIME_COARSE, &time) == 0 {
            return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        }
        #endif
        return Date()
    }
}
