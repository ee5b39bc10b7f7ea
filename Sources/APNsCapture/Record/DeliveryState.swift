/// A push's delivery state (docs/delivery.md): the mock's delivery model enters it, the
/// control API and the capture's `"kind":"delivery"` lines spell it (raw values), and the
/// control-API client decodes it.
public enum DeliveryState: String, Sendable, Hashable, CaseIterable {
    /// On the device (shown, if it shows anything).
    case delivered
    /// Held by APNs: the device is offline, or for power considerations.
    case stored
    /// Never delivered: coalesced, expired or over the background budget.
    case discarded
    /// Delivered, then taken off the screen by a later push with its collapse id.
    case replacedOnScreen = "replaced_on_screen"
    /// Answered 410: the device cannot be reached at all; or answered 500, the mock having
    /// failed to write the push's capture line (the reason `internal_server_error`).
    case rejected
}
