import APNsCore
import Foundation
import HTTPTransport

/// Hands every answered push to the delivery model: accepted ones to be delivered, stored or
/// discarded, and 410s to be logged with their reason. It observes; the answer is already
/// decided.
struct DeliveryObserver: PushObserver {
    let model: DeliveryModel

    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        guard let token = details.deviceToken, let topic = details.topic, let pushType = details.pushType else { return }
        let reason: DeliveryReason?
        switch (outcome.status, outcome.reason) {
        case (200, _): reason = nil
        case (410, .unregistered?): reason = .unregistered
        case (410, .expiredToken?): reason = .expiredToken
        default: return
        }
        let push = DeliveryInput(
            apnsID: outcome.apnsID, uniqueID: outcome.uniqueID, deviceToken: token, topic: topic, pushType: pushType,
            priority: details.priority ?? .immediately, expiration: details.expiration, collapseID: details.collapseID,
            payload: request.body)
        if let reason {
            model.reject(push, because: reason)
        } else {
            model.accept(push)
        }
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
