import APNsCore
import Foundation
import HTTPTransport
import StrictJSON

extension PushValidator {
    /// The body of a create request is tiny; past this it is `PayloadTooLarge`.
    static let maximumChannelRequestBodySize = 4096

    /// Decides one channel management request, in this order, first failure wins
    /// (docs/fidelity.md, "Broadcast channels"):
    ///
    /// | # | Step | Reasons |
    /// |---|---|---|
    /// | C1 | path `/1/apps/<bundle ID>/channels` or `…/all-channels` | 404 `BadPath` |
    /// | C2 | method: POST, GET or DELETE on `channels`; GET on `all-channels` | 405 `MethodNotAllowed` |
    /// | C3 | no header repeated | 400 `DuplicateHeaders` |
    /// | C4 | `apns-request-id`, if sent, is a UUID | 400 `BadRequestParams` |
    /// | C5 | the bundle ID has no push type's suffix | 400 `TopicDisallowed` |
    /// | C6 | credentials and provider token, as for a push to the bundle ID | 403/429 as for a device push |
    /// | C7 | the credentials cover the app; its broadcasts are on | 403 `TopicMismatch`, 400 `FeatureNotEnabled` |
    /// | C8 | create: a JSON object body of at most 4096 bytes | 413 `PayloadTooLarge`, 400 `BadRequestPayload` |
    /// | C9 | create: `push-type` is `LiveActivity` (any case) | 400 `MissingPushType`, `InvalidPushType` |
    /// | C10 | create: `message-storage-policy` is 0 or 1 | 400 `BadRequestParams` |
    /// | C11 | create: under 10,000 channels in the environment | 400 `CannotCreateChannelConfig` |
    /// | C8' | read, delete: `apns-channel-id` sent, base64 | 400 `MissingChannelId`, `BadChannelId` |
    /// | C9' | read: the app's channel in this environment | 400 `BadChannelId` (never existed), `ChannelNotRegistered` (deleted, another app's) |
    /// | C9' | delete: the app's channel in this environment | 404 `BadPath` (as the sandbox answers) |
    func decideChannelRequest(_ request: HTTPRequest, auth: inout ConnectionAuthState) -> ChannelDecision {
        var decision = ChannelDecision()
        let headers = PushHeaderFields(request.headers)
        if let id = headers.requestID, APNsIDGenerator.isCanonicalUUID(id) { decision.requestID = id }
        decision.channelID = headers.channelID
        do {
            try runChannelSteps(request, headers: headers, auth: &auth, decision: &decision)
        } catch {
            decision.reason = error.reason
            decision.message = error.message
        }
        return decision
    }

    private func runChannelSteps(
        _ request: HTTPRequest, headers: PushHeaderFields, auth: inout ConnectionAuthState, decision: inout ChannelDecision
    ) throws(PushRejection) {
        let (bundleID, listing) = try ChannelPath.parse(request.path)                                  // C1
        decision.bundleID = bundleID
        decision.operation = try ChannelPath.operation(method: request.method, listing: listing)      // C2
        var details = PushDetails()
        details.broadcastBundleID = bundleID
        try checkRepeatedHeaders(headers, details: &details)                                          // C3
        if let id = headers.requestID, decision.requestID == nil {                                    // C4
            throw PushRejection(.badRequestParams, "apns-request-id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000, found \(id)")
        }
        try ChannelRules.checkNoSuffix(bundleID)                                                      // C5
        let token = try checkCredentialsPresent(headers, auth: auth, details: &details)               // C6
        defer {
            decision.teamID = details.teamID
            decision.keyID = details.keyID
        }
        try verifyProviderToken(
            headers.authorization, token: token, topic: bundleID, bundleID: bundleID, pushType: .liveactivity,
            auth: &auth, details: &details)
        try ChannelRules.checkApp(bundleID, auth: auth, validator: self)                              // C7
        let environment = auth.environment
        switch decision.operation {
        case .create:
            let policy = try Self.createRequest(request.body)                                         // C8-C10
            do {
                decision.channel = try channels.create(bundleID: bundleID, environment: environment, storagePolicy: policy) // C11
                decision.channelID = decision.channel?.id
            } catch {
                throw PushRejection(.cannotCreateChannelConfig, "the \(environment.rawValue) environment already holds "
                    + "\(ChannelStore.maximumChannelsPerEnvironment) channels, Apple's limit; delete some first")
            }
        case .read, .delete:
            guard let channelID = headers.channelID else {                                            // C8'
                throw PushRejection(.missingChannelId, "\(request.method) on a channel needs apns-channel-id")
            }
            guard ChannelID.isWellFormed(channelID) else {
                throw PushRejection(.badChannelId, "apns-channel-id must be base64, found \(channelID)")
            }
            let lookup = channels.lookup(channelID, environment: environment)                         // C9'
            if decision.operation == .delete {
                guard case .active(let channel) = lookup, channel.bundleID == bundleID,
                      let deleted = channels.delete(channelID, environment: environment) else {
                    throw PushRejection(.badPath, "\(bundleID) has no channel \(channelID) in the \(environment.rawValue) environment "
                        + "to delete (the sandbox answers 404 BadPath)")
                }
                decision.channel = deleted
                return
            }
            switch lookup {
            case .active(let channel) where channel.bundleID == bundleID:
                decision.channel = channel
            case .active(let channel):
                throw PushRejection(.channelNotRegistered, "channel \(channelID) belongs to \(channel.bundleID), not \(bundleID)")
            case .deleted:
                throw PushRejection(.channelNotRegistered, "channel \(channelID) was deleted")
            case .unknown:
                throw PushRejection(.badChannelId, "no channel \(channelID) exists in the \(environment.rawValue) environment")
            }
        case .list, nil:
            decision.listed = channels.channels(bundleID: bundleID, environment: environment).map(\.id)
        }
    }

    /// C8-C10: `{"message-storage-policy":0|1,"push-type":"LiveActivity"}`.
    static func createRequest(_ body: [UInt8]) throws(PushRejection) -> APNsChannelStoragePolicy {
        guard body.count <= maximumChannelRequestBodySize else {
            throw PushRejection(.payloadTooLarge, "the body is \(body.count) bytes; a channel request allows \(maximumChannelRequestBodySize)")
        }
        let json: JSONValue
        do {
            json = try JSONParser.parse(body, maximumDepth: 8)
        } catch {
            throw PushRejection(.badRequestPayload, body.isEmpty
                ? "a create request needs a body: {\"message-storage-policy\":1,\"push-type\":\"LiveActivity\"}"
                : "the body is not JSON: \(error)")
        }
        guard case .object(let members) = json else {
            throw PushRejection(.badRequestPayload, "the body must be a JSON object such as {\"message-storage-policy\":1,\"push-type\":\"LiveActivity\"}")
        }
        guard let type = members[ChannelBodyKey.pushType] else {
            throw PushRejection(.missingPushType, "the body needs \"push-type\": \"LiveActivity\"")
        }
        guard case .string(let text) = type, ChannelRules.isLiveActivity(text) else {
            throw PushRejection(.invalidPushType, "\"push-type\" must be \"LiveActivity\", found \(jsonText(type))")
        }
        guard case .integer(let number)? = members[ChannelBodyKey.messageStoragePolicy],
              let policy = APNsChannelStoragePolicy(rawValue: Int(truncatingIfNeeded: number)), Int64(policy.rawValue) == number else {
            let found = members[ChannelBodyKey.messageStoragePolicy].map(jsonText) ?? "nothing"
            throw PushRejection(.badRequestParams, "\"message-storage-policy\" must be 0 (no message stored) or 1 (most recent stored), found \(found)")
        }
        return policy
    }
}

/// `value` as JSON text, for a message.
private func jsonText(_ value: JSONValue) -> String {
    var bytes: [UInt8] = []
    JSONWriter.write(value, into: &bytes, escaping: .terminalSafe)
    return String(decoding: bytes.prefix(200), as: UTF8.self)
}

/// The keys of Apple's channel management bodies (Apple's spelling, not snake_case).
enum ChannelBodyKey {
    static let messageStoragePolicy = "message-storage-policy"
    static let pushType = "push-type"
    static let channels = "channels"
}

/// The channel management paths: `/1/apps/<bundle ID>/channels` and `…/all-channels`.
enum ChannelPath {
    static let prefix = "/1/apps/"
    static let channels = "channels"
    static let allChannels = "all-channels"

    /// The bundle ID and whether the path is the list's.
    static func parse(_ path: String) throws(PushRejection) -> (bundleID: String, listing: Bool) {
        guard path.hasPrefix(prefix) else { throw badPath(path) }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, TopicRules.isWellFormed(String(parts[0])) else { throw badPath(path) }
        switch parts[1] {
        case Substring(channels): return (String(parts[0]), false)
        case Substring(allChannels): return (String(parts[0]), true)
        default: throw badPath(path)
        }
    }

    static func operation(method: String, listing: Bool) throws(PushRejection) -> ChannelOperation {
        switch (method, listing) {
        case ("GET", true): return .list
        case ("POST", false): return .create
        case ("GET", false): return .read
        case ("DELETE", false): return .delete
        default:
            throw PushRejection(.methodNotAllowed, listing
                ? "all-channels answers GET only, found \(method)"
                : "channels answers POST (create), GET (read) and DELETE, found \(method)")
        }
    }

    private static func badPath(_ path: String) -> PushRejection {
        PushRejection(.badPath, "channel management paths are /1/apps/<bundle ID>/channels and /1/apps/<bundle ID>/all-channels, found \(path)")
    }
}
