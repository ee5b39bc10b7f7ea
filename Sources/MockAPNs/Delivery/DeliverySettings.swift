import APNsCore
import Foundation

/// How the mock's devices receive what it accepted (docs/delivery.md): off by default, so a
/// mock that is not asked keeps answering and capturing exactly as before.
public struct DeliverySettings: Sendable, Hashable {
    /// Whether accepted pushes go through the delivery model (``DeliveryModel``).
    public var enabled: Bool
    /// How long an online device's priority-5 (and priority-1) push is held for power
    /// considerations before it is delivered; 0 delivers at once.
    public var powerDelay: TimeInterval
    /// How long a push without `apns-expiration` is stored for an offline device: Apple's
    /// storage policy, at most 30 days.
    public var maximumStorage: TimeInterval
    /// Background pushes each device takes in a window; nil is no budget.
    public var backgroundBudget: BackgroundBudget?
    /// Notifications a device's notification centre shows at most; older ones leave it.
    public var notificationCentreLimit: Int
    /// Connectivity the mock's devices start with, by device token.
    public var devices: [DeviceToken: DeviceConnectivityPlan]

    /// 30 days, Apple's longest storage.
    public static let defaultMaximumStorage: TimeInterval = 30 * 24 * 3600
    /// Apple documents no limit; iOS shows far fewer at once.
    public static let defaultNotificationCentreLimit = 64

    public init(
        enabled: Bool = false, powerDelay: TimeInterval = 0, maximumStorage: TimeInterval = defaultMaximumStorage,
        backgroundBudget: BackgroundBudget? = nil, notificationCentreLimit: Int = defaultNotificationCentreLimit,
        devices: [DeviceToken: DeviceConnectivityPlan] = [:]
    ) {
        self.enabled = enabled
        self.powerDelay = powerDelay
        self.maximumStorage = maximumStorage
        self.backgroundBudget = backgroundBudget
        self.notificationCentreLimit = notificationCentreLimit
        self.devices = devices
    }

    /// Background pushes allowed per device in a sliding window; one over it is discarded.
    public struct BackgroundBudget: Sendable, Hashable {
        /// Background pushes delivered in any window.
        public var count: Int
        /// The window, in seconds.
        public var window: TimeInterval

        public init(count: Int, window: TimeInterval) {
            self.count = count
            self.window = window
        }
    }
}

/// Online or offline: whether APNs can reach the device now.
public enum DeviceConnectivity: String, Sendable, Hashable, CaseIterable {
    case online
    case offline
}

/// A device's connectivity: a state, and times it is offline whatever the state says.
public struct DeviceConnectivityPlan: Sendable, Hashable {
    /// The state outside the offline windows.
    public var connectivity: DeviceConnectivity
    /// Times the device is offline, relative to when the plan is applied (the mock's start
    /// for the configuration file, the call for the control API).
    public var offlineWindows: [RelativeWindow]

    public init(connectivity: DeviceConnectivity = .online, offlineWindows: [RelativeWindow] = []) {
        self.connectivity = connectivity
        self.offlineWindows = offlineWindows
    }

    /// Offline from `start` seconds after the plan is applied, for `duration` seconds.
    public struct RelativeWindow: Sendable, Hashable {
        public var start: TimeInterval
        public var duration: TimeInterval

        public init(start: TimeInterval, duration: TimeInterval) {
            self.start = start
            self.duration = duration
        }
    }
}
