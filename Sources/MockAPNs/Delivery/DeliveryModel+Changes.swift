/// The model's changes for a follower (the dashboard, `GET /delivery/live`): each numbered in
/// the order the model made it, the latest kept (as many as the capture ring holds pushes,
/// at least 64), so that a follower asks for what came after the last number it saw and
/// waits (``waitForChange(after:timeout:)``) when nothing did.
extension DeliveryModel {
    /// The newest changes numbered after `sequence`, newest first, at most `limit`, after
    /// playing the changes due now. A push's change is listed while its record is in the log.
    public func changes(after sequence: UInt64, limit: Int) -> DeliveryChanges {
        advance()
        return withState { locked in
            let book = locked.book
            return book.feed.changes(after: sequence, limit: limit) { book.change(serial: $0, event: $1) }
        }
    }
}
