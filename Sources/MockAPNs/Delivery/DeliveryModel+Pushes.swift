import APNsCapture
import APNsCore
import HTTPTransport

/// How the mock hands every answered push to the delivery model: accepted ones to be
/// delivered, stored or discarded, and 410s to be logged with their reason. The answer is
/// already decided; the model only records what follows from it.
extension DeliveryModel {
    /// Files the push `record` describes; any other answer than 200 or 410 `Unregistered`
    /// or `ExpiredToken`, and a push without a device token, topic or push type, is not the
    /// model's.
    func file(_ record: borrowing CaptureRecord) {
        guard let (push, reason) = Self.input(of: record) else { return }
        if let reason {
            reject(push, because: reason)
        } else {
            accept(push)
        }
    }

    /// Files the push as ``file(_:)`` does and records it in `capture` (which has a file),
    /// with the lines of the delivery changes it made right after its line, in one entry of
    /// the file's queue; returns the capture's receipt.
    func file(
        _ record: borrowing CaptureRecord, recordingIn capture: CaptureStore, acknowledgement: CaptureAcknowledgement?
    ) -> CaptureStore.Receipt {
        var encoded = capture.encoding(record)
        guard let (push, reason) = Self.input(of: record) else {
            return capture.record(&encoded, followedBy: [], acknowledgement: acknowledgement)
        }
        return file(push, rejectedBecause: reason, recording: &encoded, in: capture, acknowledgement: acknowledgement)
    }

    /// The push as the model takes it, and the reason of a 410; nil when it is not the model's.
    private static func input(of record: borrowing CaptureRecord) -> (DeliveryInput, DeliveryReason?)? {
        guard let token = record.deviceToken, let topic = record.topic, let pushType = record.pushType else { return nil }
        let reason: DeliveryReason?
        switch (record.outcome.status, record.outcome.reason) {
        case (200, _): reason = nil
        case (410, .unregistered?): reason = .unregistered
        case (410, .expiredToken?): reason = .expiredToken
        default: return nil
        }
        let push = DeliveryInput(
            apnsID: record.outcome.apnsID, uniqueID: record.outcome.uniqueID, deviceToken: token, topic: topic,
            pushType: pushType, priority: record.priority ?? .immediately, expiration: record.expiration,
            collapseID: record.collapseID, payload: record.payload)
        return (push, reason)
    }

    /// Plays due changes on `loop` every ``DeliveryModel/tickInterval`` until the loop stops,
    /// so that a device comes online, and its waits end, with no push or look to trigger it.
    static func tick(_ model: DeliveryModel, on loop: EventLoop) {
        // Refused once the loop has stopped, which ends the ticking.
        try? loop.scheduleTask(after: DeliveryModel.tickInterval) {
            model.advance()
            tick(model, on: loop)
        }
    }
}
