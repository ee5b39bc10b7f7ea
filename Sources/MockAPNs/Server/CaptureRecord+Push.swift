import APNsCore
import Foundation
import HTTPTransport

extension CaptureRecord {
    /// The record of one answered push, from the request, what validation learned and how the
    /// mock answered: the one value the mock gives the capture per push.
    ///
    /// The provider token never reaches it: the `authorization` header is not kept, and only
    /// the token's decoded header, claims and fingerprint are.
    ///
    /// - Parameters:
    ///   - request: the request as received.
    ///   - details: validation's findings, including the decoded token.
    ///   - outcome: the answer sent.
    ///   - faults: the fault rules that fired, as `<id>: <summary>`.
    ///
    /// The request and details are borrowed: an initializer owns its arguments otherwise, so
    /// every push copied both whole (a retain per field) only to read a few fields of each.
    public init(request: borrowing PushRequest, details: borrowing PushDetails, outcome: PushOutcome, faults: [String] = []) {
        var headers = CaptureHeaders()
        headers.reserveCapacity(request.headers.count)
        var sentAuthorization = false
        for field in request.headers where !headers.add(name: field.name, value: field.value) { sentAuthorization = true }
        let decoded = details.tokenHeader != nil || details.tokenClaims != nil || details.tokenFingerprint != nil
        let payload = details.payloadStorage
        self.init(
            receivedAtMicroseconds: CaptureRecord.microseconds(since1970: request.receivedAt),
            environment: request.environment, connectionID: request.connectionID, method: request.method,
            path: request.path, headers: headers,
            token: decoded || sentAuthorization
                ? CaptureTokenInfo(header: details.tokenHeader, claims: details.tokenClaims, fingerprint: details.tokenFingerprint)
                : nil,
            deviceToken: details.deviceToken, topic: details.topic, pushType: details.pushType, priority: details.priority,
            expiration: details.expiration, collapseID: details.collapseID, teamID: details.teamID, keyID: details.keyID,
            payload: request.body, outcome: outcome, lintWarnings: details.lintWarnings, faults: faults)
        channelID = details.channelID
        // Validation parsed this very body strictly (the same array, so the comparison is of
        // identity): the capture need not check it again.
        if let depth = payload.acceptedMaximumDepth, payload.acceptedBytes == request.body {
            notePayloadAcceptedAsJSON(maximumDepth: depth)
        }
    }
}
