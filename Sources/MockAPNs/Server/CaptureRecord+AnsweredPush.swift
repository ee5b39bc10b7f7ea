import APNsCore
import Foundation
import HTTPTransport

extension CaptureRecord {
    /// Builds the record of one request from what validation learned and how the mock answered.
    ///
    /// - Parameters:
    ///   - request: the request; its `authorization` header is not kept.
    ///   - details: validation's findings, including the decoded token.
    ///   - outcome: the answer sent.
    ///   - faults: identifiers of injected faults that fired.
    public init(request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String] = []) {
        self.init(AnsweredPush(request: request, details: details, outcome: outcome, faults: faults))
    }

    /// The record of an answered push: what its capture line holds.
    init(_ push: AnsweredPush) {
        var headers = HTTPHeaders()
        headers.reserveCapacity(push.headerCountEstimate)
        push.forEachCapturedHeader { headers.add(name: $0.name, value: $0.value) }
        self.init(
            sequence: 0, receivedAtMicroseconds: push.receivedAtMicroseconds, environment: push.environment,
            connectionID: push.connectionID, method: push.method, path: push.path, headers: headers, token: push.token,
            deviceToken: push.deviceToken, rawDeviceToken: push.rawDeviceToken, topic: push.topic, pushType: push.pushType,
            priority: push.priority, expiration: push.expiration, collapseID: push.collapseID, teamID: push.teamID,
            keyID: push.keyID, payload: push.payload, parsedPayload: nil, outcome: push.outcome,
            lintWarnings: push.lintWarnings, faults: push.faults)
        encodedToken = push.encodedToken
        parsedPayloadStorage = push.parsedPayloadStorage
    }
}
