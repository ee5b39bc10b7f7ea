import APNsCore

/// Which delivery records to ask the control API for (`GET /delivery`, docs/control-api.md,
/// "Delivery"): one push by its `apns-id` or `apns-unique-id`, or every push of a device.
public enum DeliveryLookup: Sendable, Hashable {
    /// The push answered with this `apns-id`.
    case apnsID(String)
    /// The push answered with this `apns-unique-id` (sandbox).
    case uniqueID(String)
    /// Every push the log holds for this device.
    case deviceToken(DeviceToken)

    /// The query parameter that names it.
    var parameter: String {
        switch self {
        case .apnsID(let id): "apns_id=\(PushQuery.encoded(id))"
        case .uniqueID(let id): "unique_id=\(PushQuery.encoded(id))"
        case .deviceToken(let token): "device_token=\(token.hex)"
        }
    }
}
