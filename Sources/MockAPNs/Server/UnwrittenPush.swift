import APNsCore
import Foundation

/// A push whose capture line could not be written is answered 500 `InternalServerError`
/// (docs/capture-format.md, "Durability"), and everything the mock keeps about it is made to
/// agree with that answer. The decision was recorded and filed before the write; what follows
/// runs only when the write fails, so the push path pays nothing for it.
extension PushOutcome {
    /// Why the answer is 500, as the capture and the log say it.
    static let unwrittenExplanation = "the push could not be written to the capture file, so the mock does not claim it"

    /// The answer a push decided as `decided` gets when its line could not be written: 500
    /// `InternalServerError` with the same ids (a broadcast's `apns-request-id` included).
    static func unwritten(_ decided: PushOutcome) -> PushOutcome {
        var outcome = PushOutcome.rejected(
            .internalServerError, apnsID: decided.apnsID, uniqueID: decided.uniqueID, explanation: unwrittenExplanation)
        outcome.requestID = decided.requestID
        return outcome
    }
}

extension MockServices {
    /// Makes the capture's ring and the delivery model agree with the 500 a push decided as
    /// `decided` is answered because its line could not be written: the ring's entry shows
    /// `answer` (``CaptureStore/amendOutcome(apnsID:receivedAtMicroseconds:to:)``), and a push
    /// the delivery model filed is taken back (``DeliveryModel/withdraw(_:deviceToken:)``).
    /// Observers and metrics are told `answer` by the endpoint, as for any push.
    func takeBack(_ decided: PushOutcome, answer: PushOutcome, receivedAtMicroseconds: Int64, deviceToken: DeviceToken?) {
        capture.amendOutcome(apnsID: decided.apnsID, receivedAtMicroseconds: receivedAtMicroseconds, to: answer)
        delivery?.withdraw(decided, deviceToken: deviceToken)
    }
}
