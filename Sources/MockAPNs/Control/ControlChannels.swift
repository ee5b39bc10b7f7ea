import APNsCore
import Foundation
import HTTPTransport
import StrictJSON

/// The control API's channel routes (docs/control-api.md, "Broadcast channels"), so that a
/// test can set channels up and look at them without the channel management listeners:
///
/// | method | path | does |
/// |---|---|---|
/// | GET | /channels | the channels (`environment`, `bundle_id` filter) |
/// | POST | /channels | creates one: `{"bundle_id":…,"environment":…,"message_storage_policy":0\|1}` (optional `channel_id`) |
/// | DELETE | /channels | deletes every channel |
/// | DELETE | /channels/{id} | deletes one (percent-encode `/`, `+` and `=`; `environment` to pick one) |
/// | GET | /channels/operations | the last channel management requests, as their capture lines |
/// | GET, PUT | /channels/broadcast-disabled-apps | the apps answered `FeatureNotEnabled`: `{"bundle_ids":[…]}` |
enum ControlChannels {
    static let root = "/channels"
    static let operations = "/channels/operations"
    static let disabledApps = "/channels/broadcast-disabled-apps"

    enum Key {
        static let channels = "channels"
        static let channelID = "channel_id"
        static let bundleID = "bundle_id"
        static let bundleIDs = "bundle_ids"
        static let environment = "environment"
        static let storagePolicy = "message_storage_policy"
        static let createdAt = "created_at"
        static let operations = "operations"
        static let count = "count"
    }

    static func isChannelPath(_ path: String) -> Bool {
        path == root || path.hasPrefix(root + "/")
    }

    /// The query parameters each route reads; nil for no route.
    static func acceptedParameters(method: String, path: String) -> [String]? {
        switch (method, path) {
        case ("GET", root): [Key.environment, Key.bundleID]
        case ("POST", root), ("DELETE", root), ("GET", operations), ("GET", disabledApps), ("PUT", disabledApps): []
        case ("DELETE", _) where path != operations && path != disabledApps && path.hasPrefix(root + "/"): [Key.environment]
        default: nil
        }
    }

    struct RequestError: Error, CustomStringConvertible {
        var status = 400
        var description: String
    }

    /// Answers a request whose path ``isChannelPath(_:)``, or nil when the method is not one
    /// the path answers (the router's 405).
    static func handle(_ request: HTTPRequest, path: String, query: QueryParameters, channels: ChannelStore,
                       events: ChannelEventLog) throws -> HTTPResponse? {
        switch (request.method, path) {
        case ("GET", root):
            let environment = try Self.environment(query[Key.environment])
            let listed = channels.channels(bundleID: query[Key.bundleID], environment: environment)
            return ControlAPI.json(200, .object([Key.count: .integer(Int64(listed.count)), Key.channels: .array(listed.map(json))]))
        case ("POST", root):
            let object = try JSONObjectReader(try ConfigurationJSON.parse(request.body), path: "",
                                              allowed: [Key.bundleID, Key.environment, Key.storagePolicy, Key.channelID])
            guard let bundleID = try object.string(Key.bundleID) else { throw RequestError(description: "\(Key.bundleID) is required") }
            let environment = try Self.environment(try object.string(Key.environment)) ?? .sandbox
            let policy = try object.integer(Key.storagePolicy, in: 0...1).flatMap { APNsChannelStoragePolicy(rawValue: Int($0)) }
                ?? .mostRecentMessageStored
            let id = try object.string(Key.channelID)
            do throws(ChannelStore.CreateError) {
                let channel = try channels.create(bundleID: bundleID, environment: environment, storagePolicy: policy, id: id)
                return ControlAPI.json(201, json(channel))
            } catch .limitReached(let limit) {
                throw RequestError(status: 409, description: "the \(environment.rawValue) environment already holds \(limit) channels")
            } catch .badID(let id) {
                throw RequestError(description: "\(Key.channelID) \(JSONValue.string(id)) is not padded base64, or is in use")
            }
        case ("DELETE", root):
            channels.removeAll()
            return HTTPResponse(status: 204)
        case ("GET", operations):
            let listed = events.recentOperations.compactMap { operation -> JSONValue? in
                guard case .object(var members) = try? JSONParser.parse(CaptureStore.encodedLine(operation, sequence: 1)) else { return nil }
                members["v"] = nil
                members["seq"] = nil
                return .object(members)
            }
            return ControlAPI.json(200, .object([Key.count: .integer(Int64(listed.count)), Key.operations: .array(listed)]))
        case ("GET", disabledApps):
            return ControlAPI.json(200, .object([Key.bundleIDs: .array(channels.broadcastDisabledApps.sorted().map { .string($0) })]))
        case ("PUT", disabledApps):
            let object = try JSONObjectReader(try ConfigurationJSON.parse(request.body), path: "", allowed: [Key.bundleIDs])
            let apps = try object.stringArray(Key.bundleIDs) ?? []
            channels.replaceBroadcastDisabledApps(Set(apps))
            return ControlAPI.json(200, .object([Key.bundleIDs: .array(Set(apps).sorted().map { .string($0) })]))
        case ("DELETE", _) where acceptedParameters(method: "DELETE", path: path) != nil:
            let encoded = String(path.dropFirst(root.count + 1))
            guard let id = encoded.removingPercentEncoding else {
                throw RequestError(description: "the channel id \(JSONValue.string(encoded)) does not percent-decode")
            }
            let environments = try Self.environment(query[Key.environment]).map { [$0] } ?? APNsEnvironment.allCases
            let deleted = environments.compactMap { channels.delete(id, environment: $0) }
            guard !deleted.isEmpty else {
                throw RequestError(status: 404, description: "no channel \(JSONValue.string(id))")
            }
            return HTTPResponse(status: 204)
        default:
            return nil
        }
    }

    private static func environment(_ text: String?) throws -> APNsEnvironment? {
        guard let text else { return nil }
        guard let environment = APNsEnvironment(rawValue: text) else {
            throw RequestError(description: "\(Key.environment): expected sandbox or production, found \(JSONValue.string(text))")
        }
        return environment
    }

    static func json(_ channel: BroadcastChannel) -> JSONValue {
        .object([
            Key.channelID: .string(channel.id), Key.bundleID: .string(channel.bundleID),
            Key.environment: .string(channel.environment.rawValue),
            Key.storagePolicy: .integer(Int64(channel.storagePolicy.rawValue)),
            Key.createdAt: .string(ISO8601DateFormatter().string(from: channel.createdAt)),
        ])
    }
}
