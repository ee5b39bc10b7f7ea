import APNsCore

/// How APNs answered one push, after any retries.
public enum APNsDeliveryResult: Sendable, Hashable {
    /// 200: APNs took it; `apnsID` is the id APNs echoed.
    case accepted(apnsID: String)
    /// APNs refused it with `reason` (and, on 410, the time the token was last valid, epoch ms).
    case rejected(status: Int, reason: APNsReason, timestamp: Int64?)
    /// APNs could not be reached or gave no answer (within the gateway's APNs timeout, say);
    /// `detail` is safe to log (no secrets).
    case unreachable(String)
}
