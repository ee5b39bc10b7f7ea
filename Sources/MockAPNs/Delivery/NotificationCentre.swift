import APNsCore
import Foundation

/// What a device shows now, after coalescing and collapse: its notifications in order of
/// delivery (oldest first) and each app's badge.
public struct NotificationCentre: Sendable, Hashable {
    public var deviceToken: DeviceToken
    public var connectivity: DeviceConnectivity
    /// Shown notifications, oldest first: at most ``DeliverySettings/notificationCentreLimit``.
    public var notifications: [ShownNotification]
    /// The badge each app set last (`aps.badge`, 0 clears it), by bundle ID; apps that never
    /// set one are absent.
    public var badges: [String: Int]
}

/// One notification on a device's screen.
public struct ShownNotification: Sendable, Hashable {
    /// The delivery record's serial.
    public var serial: UInt64
    public var apnsID: String
    public var uniqueID: String?
    public var topic: String
    public var collapseID: String?
    public var deliveredAt: Date
    /// The payload exactly as sent.
    public var payload: [UInt8]
}
