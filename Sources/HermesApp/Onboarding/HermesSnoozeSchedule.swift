/// How long "Later" on the install sheet keeps it away (contract §4): a Fibonacci backoff
/// in days, 1, 2, 3, 5, 8, 13, 21, 34, 55, then 60 for every later snooze.
///
/// ```swift
/// HermesSnoozeSchedule.days(forSnooze: 1)    // 1
/// HermesSnoozeSchedule.days(forSnooze: 9)    // 55
/// HermesSnoozeSchedule.days(forSnooze: 40)   // 60
/// ```
public enum HermesSnoozeSchedule {
    /// The snoozes before the cap, in days.
    public static let backoffDays = [1, 2, 3, 5, 8, 13, 21, 34, 55]
    /// Every snooze after the ninth lasts this many days.
    public static let cappedDays = 60

    /// The length of the `number`th snooze (1-based), in days.
    public static func days(forSnooze number: Int) -> Int {
        guard number >= 1 else { return backoffDays[0] }
        return number <= backoffDays.count ? backoffDays[number - 1] : cappedDays
    }
}
