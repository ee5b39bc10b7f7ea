/// The `apns-priority` header.
public enum APNsPriority: Int, Sendable, Hashable, CaseIterable {
    /// 10: deliver now. The default when the header is absent.
    case immediately = 10
    /// 5: deliver considering the device's power; required for background pushes.
    case consideringDevicePower = 5
    /// 1: prioritise power entirely; never wakes the device.
    case prioritizingPowerSavings = 1

    /// Parses the header's text; nil for anything but `10`, `5` or `1`.
    public init?(headerValue: String) {
        guard let number = Int(headerValue), let priority = APNsPriority(rawValue: number) else { return nil }
        self = priority
    }
}
