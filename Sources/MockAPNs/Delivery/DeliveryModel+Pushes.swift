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
        guard let answer = Self.answer(of: record), let token = record.deviceToken, let topic = record.topic,
              let pushType = record.pushType else { return }
        let push = Self.input(of: record, token: token, topic: topic, pushType: pushType)
        switch answer {
        case .accepted: accept(push)
        case .rejected(let reason): reject(push, because: reason)
        }
    }

    /// Files the push as ``file(_:)`` does and records it in `capture` (which has a file),
    /// with the lines of the delivery changes it made right after its line, in one entry of
    /// the file's queue; returns the capture's receipt.
    func file(
        _ record: borrowing CaptureRecord, recordingIn capture: CaptureStore, acknowledgement: CaptureAcknowledgement?
    ) -> CaptureStore.Receipt {
        var encoded = capture.encoding(record)
        guard let answer = Self.answer(of: record), let token = record.deviceToken, let topic = record.topic,
              let pushType = record.pushType else {
            return capture.record(&encoded, followedBy: [], acknowledgement: acknowledgement)
        }
        let reason: DeliveryReason? = if case .rejected(let reason) = answer { reason } else { nil }
        // Made and lent here, not unwrapped from an optional, which copies it.
        return file(Self.input(of: record, token: token, topic: topic, pushType: pushType), rejectedBecause: reason,
                    recording: &encoded, in: capture, acknowledgement: acknowledgement)
    }

    /// Takes back a push the mock filed and then answered 500 instead of `decided`,
    /// because its capture line could not be written (``DeliveryBook/withdraw(apnsID:deviceToken:at:)``):
    /// a user who got a 500 must not find the push delivered or stored. Called once the
    /// write has failed, off the push path; `decided` says whether the push was filed.
    func withdraw(_ decided: PushOutcome, deviceToken: DeviceToken?) {
        guard let deviceToken, Self.answer(status: decided.status, reason: decided.reason) != nil else { return }
        withdraw(apnsID: decided.apnsID, deviceToken: deviceToken)
    }

    /// An answer the model takes.
    private enum Answer {
        case accepted
        case rejected(DeliveryReason)
    }

    /// 200, or 410 with the reason the log gives; nil for any other answer.
    private static func answer(of record: borrowing CaptureRecord) -> Answer? {
        answer(status: record.outcome.status, reason: record.outcome.reason)
    }

    private static func answer(status: Int, reason: APNsReason?) -> Answer? {
        switch (status, reason) {
        case (200, _): .accepted
        case (410, .unregistered?): .rejected(.unregistered)
        case (410, .expiredToken?): .rejected(.expiredToken)
        default: nil
        }
    }

    /// The push as the model takes it, given the record's device token, topic and push type.
    private static func input(
        of record: borrowing CaptureRecord, token: DeviceToken, topic: String, pushType: APNsPushType
    ) -> DeliveryInput {
        DeliveryInput(
            apnsID: record.outcome.apnsID, uniqueID: record.outcome.uniqueID, deviceToken: token, topic: topic,
            pushType: pushType, priority: record.priority ?? .immediately, expiration: record.expiration,
            collapseID: record.collapseID, payload: record.payload)
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
