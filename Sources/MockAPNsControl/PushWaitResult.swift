import APNsCapture

/// What `GET /pushes/wait` answered: the matching pushes, and whether enough arrived.
public struct PushWaitResult: Sendable {
    /// The matching pushes, oldest first (possibly more than asked for when satisfied).
    public let records: [CaptureRecord]
    /// True for `200` (enough arrived), false for `408` (the wait timed out with these).
    public let satisfied: Bool
}
