internal import SystemSeam

/// The wall clock, without Foundation (the library stays small and its hot path lean).
enum Clock {
    /// Now in whole UNIX seconds.
    static func unixSeconds() -> Int {
        Int(time(nil))
    }
}
