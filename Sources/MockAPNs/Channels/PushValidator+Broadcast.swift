import APNsCore
import Foundation
import StrictJSON

extension PushValidator {
    /// The largest broadcast payload, as for VoIP.
    static let maximumBroadcastPayloadSize = 5120

    /// The steps of a broadcast (`POST /4/broadcasts/apps/<bundle ID>`), after steps 0 and 1
    /// of a device push, first failure wins (docs/fidelity.md, "Broadcast channels"):
    ///
    /// | # | Step | Reasons |
    /// |---|---|---|
    /// | B2 | the path names one bundle ID | 404 `BadPath` |
    /// | B3 | no header repeated | 400 `DuplicateHeaders` |
    /// | B4 | `apns-request-id`, if sent, is a UUID | 400 `BadRequestParams` |
    /// | B5 | `apns-push-type` is sent and is `liveactivity` (any case) | 400 `MissingPushType`, `InvalidPushType` |
    /// | B6 | `apns-channel-id` is sent and is base64 | 400 `MissingChannelId`, `BadChannelId` |
    /// | B7 | `apns-priority`, if sent, is 5 or 10 | 400 `BadPriority` |
    /// | B8 | `apns-expiration` is sent, as UNIX seconds | 400 `BadExpirationDate` |
    /// | B9 | the bundle ID has no push type's suffix | 400 `TopicDisallowed` |
    /// | B10 | credentials (device step 10) | 403 `BadCertificate`, `BadCertificateEnvironment`, `MissingProviderToken` |
    /// | B12 | provider token (device step 12, for the bundle ID) | 403/429 as for a device push |
    /// | B13 | the credentials cover the app; its broadcasts are on | 403 `TopicMismatch`, 400 `FeatureNotEnabled` |
    /// | B14 | the channel exists in this environment, for this app | 400 `BadChannelId` (never existed), `ChannelNotRegistered` (deleted, or another app's) |
    /// | B15 | a no-storage channel gets `apns-expiration: 0` | 400 `BadExpirationDate` |
    /// | B16 | payload: not empty, at most 5120 bytes, a JSON object | 400 `PayloadEmpty`, 413 `PayloadTooLarge` |
    ///
    /// `event: start` is accepted with lint `aps.liveactivity-broadcast-start` (LiveActivityRules): Apple says a broadcast
    /// cannot start an activity but names no reason.
    func runBroadcastSteps(
        _ request: PushRequest, headers: PushHeaderFields, auth: inout ConnectionAuthState, details: inout PushDetails
    ) throws(PushRejection) {
        details.channelID = headers.channelID
        guard let bundleID = BroadcastPath.bundleID(in: request.path) else {                       // B2
            throw PushRejection(.badPath, "a broadcast goes to /4/broadcasts/apps/<bundle ID>, found \(request.path)")
        }
        details.broadcastBundleID = bundleID
        details.topic = bundleID
        try checkRepeatedHeaders(headers, details: &details)                                         // B3
        if let id = headers.requestID, !APNsIDGenerator.isCanonicalUUID(id) {                       // B4
            throw PushRejection(.badRequestParams, "apns-request-id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000, found \(id)")
        }
        guard let type = headers.pushType else {                                                     // B5
            throw PushRejection(.missingPushType, "a broadcast needs apns-push-type: liveactivity")
        }
        guard ChannelRules.isLiveActivity(type) else {
            throw PushRejection(.invalidPushType, "a broadcast's apns-push-type must be liveactivity, found \(type)")
        }
        details.pushType = .liveactivity
        guard let channelID = headers.channelID else {                                               // B6
            throw PushRejection(.missingChannelId, "a broadcast needs apns-channel-id")
        }
        guard ChannelID.isWellFormed(channelID) else {
            throw PushRejection(.badChannelId, "apns-channel-id must be base64, found \(channelID)")
        }
        var priority = APNsPriority.immediately                                                       // B7
        if let text = headers.priority {
            guard let parsed = APNsPriority(headerValue: text), parsed != .prioritizingPowerSavings else {
                throw PushRejection(.badPriority, "a broadcast's apns-priority must be 10 or 5, found \(text)")
            }
            priority = parsed
        }
        details.priority = priority
        guard headers.expiration != nil else {                                                        // B8
            throw PushRejection(.badExpirationDate, "a broadcast needs apns-expiration (0, or UNIX seconds on a channel that stores)")
        }
        try checkExpiration(headers.expiration, receivedAt: request.receivedAt, details: &details)
        try ChannelRules.checkNoSuffix(bundleID)                                                      // B9
        let token = try checkCredentialsPresent(headers, auth: auth, details: &details)              // B10
        try verifyProviderToken(
            headers.authorization, token: token, topic: bundleID, bundleID: bundleID, pushType: .liveactivity,
            auth: &auth, details: &details)                                                           // B12
        try ChannelRules.checkApp(bundleID, auth: auth, validator: self)                              // B13
        let channel: BroadcastChannel
        switch channels.lookup(channelID, environment: auth.environment) {                            // B14
        case .active(let found) where found.bundleID == bundleID:
            channel = found
        case .active(let found):
            throw PushRejection(.channelNotRegistered, "channel \(channelID) belongs to \(found.bundleID), not \(bundleID)")
        case .deleted:
            throw PushRejection(.channelNotRegistered, "channel \(channelID) was deleted")
        case .unknown:
            throw PushRejection(.badChannelId, "no channel \(channelID) exists in the \(auth.environment.rawValue) environment")
        }
        if channel.storagePolicy == .noMessageStored, let expiration = details.expiration, expiration != 0 {  // B15
            throw PushRejection(.badExpirationDate, "channel \(channelID) stores no messages, so apns-expiration must be 0, found \(expiration)")
        }
        try checkBroadcastPayload(request, details: &details)                                         // B16
    }

    /// B16: the payload rules of a Live Activity push, with the broadcast's 5120-byte limit.
    private func checkBroadcastPayload(_ request: PushRequest, details: inout PushDetails) throws(PushRejection) {
        let limit = Self.maximumBroadcastPayloadSize
        if let grew = request.oversizedBodyLimit {
            throw PushRejection(.payloadTooLarge, "the body grew past \(grew) bytes and was not read to its end; a broadcast allows \(limit)")
        }
        let body = request.body
        guard !body.isEmpty else { throw PushRejection(.payloadEmpty, "the body is empty") }
        guard body.count <= limit else {
            throw PushRejection(.payloadTooLarge, "the payload is \(body.count) bytes; a broadcast allows \(limit)")
        }
        guard let outline = try objectOutline(of: body, details: &details) else { return }
        let maximumDepth = settings.payloadNestingLimit
        PayloadRules.lint(outline, pushType: .liveactivity, isBroadcast: true, into: &details.lintWarnings) {
            try? JSONParser.parse(body, maximumDepth: maximumDepth)
        }
    }
}
