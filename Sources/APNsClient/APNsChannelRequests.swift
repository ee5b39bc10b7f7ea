import APNsCore
import HTTPTransport
import StrictJSON

/// The channel management API's requests and answers, as Apple documents them
/// ("Sending channel management requests to APNs"): paths, bodies, and what a success
/// answer must hold.
enum APNsChannelRequests {
    static let broadcastPathPrefix = "/4/broadcasts/apps/"
    static let appsPathPrefix = "/1/apps/"
    static let policyKey = "message-storage-policy"
    static let pushTypeKey = "push-type"
    static let channelsKey = "channels"

    /// `POST /1/apps/<bundleID>/channels` with `{"message-storage-policy":N,"push-type":"LiveActivity"}`.
    static func create(bundleID: String, policy: APNsChannelStoragePolicy, requestID: String?) throws(APNsClientError) -> APNsProviderRequest {
        try checkBundleID(bundleID)
        try checkRequestID(requestID)
        var body: [UInt8] = []
        JSONWriter.write([policyKey: .integer(Int64(policy.rawValue)), pushTypeKey: .string(APNsChannelStoragePolicy.pushType)], into: &body)
        return APNsProviderRequest(method: "POST", path: channelsPath(bundleID), headers: [(APNsHeaderName.contentType, "application/json")],
                                   body: body, requestID: requestID)
    }

    /// `GET` (read) or `DELETE` on `/1/apps/<bundleID>/channels` with `apns-channel-id`.
    static func channel(_ method: String, id: String, bundleID: String, requestID: String?) throws(APNsClientError) -> APNsProviderRequest {
        try checkBundleID(bundleID)
        try checkRequestID(requestID)
        try checkChannelID(id)
        return APNsProviderRequest(method: method, path: channelsPath(bundleID), headers: [(APNsHeaderName.channelID, id)],
                                   body: [], requestID: requestID)
    }

    /// `GET /1/apps/<bundleID>/all-channels`.
    static func list(bundleID: String, requestID: String?) throws(APNsClientError) -> APNsProviderRequest {
        try checkBundleID(bundleID)
        try checkRequestID(requestID)
        return APNsProviderRequest(method: "GET", path: appsPathPrefix + bundleID + "/all-channels", headers: [], body: [],
                                   requestID: requestID)
    }

    private static func channelsPath(_ bundleID: String) -> String { appsPathPrefix + bundleID + "/channels" }

    // MARK: Answers

    /// The created channel's id, from the 201's `apns-channel-id`.
    static func createdChannelID(_ headers: HTTPHeaders) throws(APNsClientError) -> String {
        guard let id = headers[APNsHeaderName.channelID], !id.isEmpty else {
            throw .invalidAnswer("the channel was created (201) but the answer has no apns-channel-id")
        }
        return id
    }

    /// A read's body, `{"message-storage-policy":N,"push-type":"LiveActivity"}`, for channel `id`.
    static func channel(id: String, from body: [UInt8]) throws(APNsClientError) -> APNsChannel {
        guard case .object(let members)? = try? JSONParser.parse(body, maximumDepth: 4) else {
            throw .invalidAnswer("the channel's description is not a JSON object: \(Self.excerpt(body))")
        }
        guard case .integer(let number)? = members[policyKey], let policy = APNsChannelStoragePolicy(rawValue: Int(number)) else {
            throw .invalidAnswer("the channel's description has no \(policyKey) of 0 or 1: \(Self.excerpt(body))")
        }
        return APNsChannel(id: id, messageStoragePolicy: policy,
                           pushType: members[pushTypeKey]?.stringValue ?? APNsChannelStoragePolicy.pushType)
    }

    /// A list's body, `{"channels":["id",…]}`.
    static func channelIDs(from body: [UInt8]) throws(APNsClientError) -> [String] {
        guard case .object(let members)? = try? JSONParser.parse(body, maximumDepth: 4),
              case .array(let items)? = members[channelsKey] else {
            throw .invalidAnswer("the channel list is not {\"channels\":[…]}: \(Self.excerpt(body))")
        }
        var ids: [String] = []
        ids.reserveCapacity(items.count)
        for item in items {
            guard let id = item.stringValue else { throw .invalidAnswer("the channel list holds a \(item.typeName), not an id") }
            ids.append(id)
        }
        return ids
    }

    private static func excerpt(_ body: [UInt8]) -> String {
        body.isEmpty ? "(empty)" : String(decoding: body.prefix(200), as: UTF8.self).debugDescription
    }

    // MARK: Checks

    /// A bundle ID goes in the path: letters, digits, `.` and `-`, as Apple allows.
    static func checkBundleID(_ bundleID: String) throws(APNsClientError) {
        guard !bundleID.isEmpty, bundleID.utf8.allSatisfy({ byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "."), UInt8(ascii: "-"): true
            default: false
            }
        }) else {
            throw .invalidRequest("the bundle ID '\(bundleID)' must be letters, digits, '.' and '-'")
        }
    }

    /// `apns-request-id`, when the caller gives one, is a canonical UUID, as `apns-id` is.
    static func checkRequestID(_ requestID: String?) throws(APNsClientError) {
        if let requestID, !APNsIDGenerator.isCanonicalUUID(requestID) {
            throw .invalidRequest("apns-request-id '\(requestID)' is not a canonical UUID (8-4-4-4-12 hex digits)")
        }
    }

    /// A channel id goes in a header: not empty, no control characters or spaces. Its
    /// base64 form is the server's to judge (`BadChannelId`).
    static func checkChannelID(_ id: String) throws(APNsClientError) {
        guard !id.isEmpty, !id.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7f }) else {
            throw .invalidRequest("the channel id '\(id)' must be the base64 text APNs returned, without spaces or control characters")
        }
    }
}
