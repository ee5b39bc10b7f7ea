import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// Every status and reason of the channel management API and of broadcasts, over real
/// HTTP/2 and TLS, on both environments, sent once by this package's `HTTP2Client` and once
/// by the independent python `h2` client; both must read the same answers.
@Suite struct BroadcastReasonTests {
    static let app = Acceptance.topic
    /// Registered, with its broadcasts turned off: `FeatureNotEnabled`.
    static let quietApp = "com.example.quiet"
    /// Registered, with a channel of its own.
    static let otherApp = "com.example.other"
    static let requestID = "6a0a3c9e-1d2b-4c5d-8e9f-0a1b2c3d4e5f"
    static let update = #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":1}}}"#

    /// Channels made for one run in one environment, through the embedding API.
    struct Fixture {
        var live: String
        var noStorage: String
        var deleted: String
        var doomed: String
        var otherApps: String
    }

    static func fixture(_ mock: MockAPNsServer, _ environment: APNsEnvironment) throws -> Fixture {
        func make(_ app: String = app, _ policy: APNsChannelStoragePolicy = .mostRecentMessageStored) throws -> String {
            try mock.channels.create(bundleID: app, environment: environment, storagePolicy: policy).id
        }
        let deleted = try make()
        mock.channels.delete(deleted, environment: environment)
        return Fixture(live: try make(), noStorage: try make(app, .noMessageStored), deleted: deleted, doomed: try make(),
                       otherApps: try make(otherApp))
    }

    static func startMock() throws -> MockAPNsServer {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.registry.bundleIDs.formUnion([quietApp, otherApp])
        }
        mock.channels.setBroadcastEnabled(false, for: quietApp)
        return mock
    }

    typealias Request = ChannelWire.Request

    static func channel(_ label: String, _ method: String, path: String = "/1/apps/\(app)/channels", token: String?,
                        headers: [(String, String)] = [], body: String = "") -> Request {
        var all = headers
        if let token { all.insert(("authorization", "bearer \(token)"), at: 0) }
        return Request(label: label, listener: .channels, method: method, path: path, headers: all, body: Array(body.utf8))
    }

    static func broadcast(_ label: String, channel: String?, token: String?, app: String = app, method: String = "POST",
                          pushType: String? = "liveactivity", expiration: String? = "0", extra: [(String, String)] = [],
                          body: String = update) -> Request {
        var headers: [(String, String)] = []
        if let token { headers.append(("authorization", "bearer \(token)")) }
        if let pushType { headers.append(("apns-push-type", pushType)) }
        if let channel { headers.append(("apns-channel-id", channel)) }
        if let expiration { headers.append(("apns-expiration", expiration)) }
        return Request(label: label, listener: .pushes, method: method, path: "/4/broadcasts/apps/\(app)",
                       headers: headers + extra, body: Array(body.utf8))
    }

    /// The requests and the status and reason each must get (nil reason: success).
    static func table(token: String, _ f: Fixture) -> [(Request, Int, APNsReason?)] {
        let create = #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
        let id = ("apns-channel-id", f.live)
        return [
            // Channel management: successes.
            (channel("create", "POST", token: token, body: create), 201, nil),
            (channel("create, lowercase push type", "POST", token: token, body: #"{"message-storage-policy":0,"push-type":"liveactivity"}"#), 201, nil),
            (channel("read", "GET", token: token, headers: [id]), 200, nil),
            (channel("list", "GET", path: "/1/apps/\(app)/all-channels", token: token), 200, nil),
            (channel("delete", "DELETE", token: token, headers: [("apns-channel-id", f.doomed)]), 204, nil),
            // Channel management: every documented error.
            (channel("unknown path", "GET", path: "/1/apps/\(app)/nothing", token: token), 404, .badPath),
            (channel("PUT", "PUT", token: token, body: create), 405, .methodNotAllowed),
            (channel("repeated header", "GET", token: token, headers: [id, id]), 400, .duplicateHeaders),
            (channel("bad request id", "GET", token: token, headers: [id, ("apns-request-id", "nope")]), 400, .badRequestParams),
            (channel("suffixed bundle ID", "POST", path: "/1/apps/\(app).push-type.liveactivity/channels", token: token, body: create),
             400, .topicDisallowed),
            (channel("no token", "POST", token: nil, body: create), 403, .missingProviderToken),
            (channel("bad token", "POST", token: "e30.e30.AAAA", body: create), 403, .invalidProviderToken),
            (channel("unknown app", "GET", path: "/1/apps/com.unknown.app/all-channels", token: token), 403, .topicMismatch),
            (channel("broadcasts off", "GET", path: "/1/apps/\(quietApp)/all-channels", token: token), 400, .featureNotEnabled),
            (channel("malformed JSON", "POST", token: token, body: #"{"message-storage-policy":1,"#), 400, .badRequestPayload),
            (channel("not an object", "POST", token: token, body: "[1]"), 400, .badRequestPayload),
            (channel("no body", "POST", token: token), 400, .badRequestPayload),
            (channel("no push type", "POST", token: token, body: #"{"message-storage-policy":1}"#), 400, .missingPushType),
            (channel("alert push type", "POST", token: token, body: #"{"message-storage-policy":1,"push-type":"alert"}"#), 400, .invalidPushType),
            (channel("unknown policy", "POST", token: token, body: #"{"message-storage-policy":2,"push-type":"LiveActivity"}"#),
             400, .badRequestParams),
            (channel("policy as text", "POST", token: token, body: #"{"message-storage-policy":"1","push-type":"LiveActivity"}"#),
             400, .badRequestParams),
            (channel("huge body", "POST", token: token, body: String(repeating: " ", count: 16_000) + create), 413, .payloadTooLarge),
            (channel("read, no id", "GET", token: token), 400, .missingChannelId),
            (channel("delete, no id", "DELETE", token: token), 400, .missingChannelId),
            (channel("read, not base64", "GET", token: token, headers: [("apns-channel-id", "not base64!")]), 400, .badChannelId),
            (channel("read, never existed", "GET", token: token, headers: [("apns-channel-id", "bm9wZQ==")]), 400, .badChannelId),
            (channel("read, deleted", "GET", token: token, headers: [("apns-channel-id", f.deleted)]), 400, .channelNotRegistered),
            (channel("read, another app's", "GET", token: token, headers: [("apns-channel-id", f.otherApps)]), 400, .channelNotRegistered),
            (channel("delete, deleted", "DELETE", token: token, headers: [("apns-channel-id", f.deleted)]), 404, .badPath),
            // Broadcasts: successes.
            (broadcast("broadcast", channel: f.live, token: token, extra: [("apns-request-id", requestID)]), 200, nil),
            (broadcast("broadcast, LiveActivity spelling", channel: f.live, token: token, pushType: "LiveActivity"), 200, nil),
            (broadcast("broadcast, priority 5, stored", channel: f.live, token: token, expiration: "4102444800",
                       extra: [("apns-priority", "5")]), 200, nil),
            (broadcast("broadcast, no storage, 0", channel: f.noStorage, token: token), 200, nil),
            (broadcast("broadcast, 5120 bytes", channel: f.live, token: token, body: Self.payload(size: 5120)), 200, nil),
            (broadcast("broadcast, start event", channel: f.live, token: token,
                       body: #"{"aps":{"event":"start","timestamp":1,"content-state":{},"attributes-type":"A","attributes":{},"alert":"hi"}}"#),
             200, nil),
            // Broadcasts: every documented error.
            (broadcast("broadcast, GET", channel: f.live, token: token, method: "GET"), 405, .methodNotAllowed),
            (Request(label: "broadcast, no bundle ID", listener: .pushes, method: "POST", path: "/4/broadcasts/apps/",
                     headers: [("authorization", "bearer \(token)")], body: Array(update.utf8)), 404, .badPath),
            (broadcast("broadcast, repeated channel", channel: f.live, token: token, extra: [("apns-channel-id", f.live)]), 400, .duplicateHeaders),
            (broadcast("broadcast, bad request id", channel: f.live, token: token, extra: [("apns-request-id", "x")]), 400, .badRequestParams),
            (broadcast("broadcast, no push type", channel: f.live, token: token, pushType: nil), 400, .missingPushType),
            (broadcast("broadcast, alert", channel: f.live, token: token, pushType: "alert"), 400, .invalidPushType),
            (broadcast("broadcast, no channel", channel: nil, token: token), 400, .missingChannelId),
            (broadcast("broadcast, not base64", channel: "%%%", token: token), 400, .badChannelId),
            (broadcast("broadcast, priority 1", channel: f.live, token: token, extra: [("apns-priority", "1")]), 400, .badPriority),
            (broadcast("broadcast, no expiration", channel: f.live, token: token, expiration: nil), 400, .badExpirationDate),
            (broadcast("broadcast, expiration text", channel: f.live, token: token, expiration: "soon"), 400, .badExpirationDate),
            (broadcast("broadcast, suffixed app", channel: f.live, token: token, app: "\(app).push-type.liveactivity"), 400, .topicDisallowed),
            (broadcast("broadcast, no token", channel: f.live, token: nil), 403, .missingProviderToken),
            (broadcast("broadcast, unknown app", channel: f.live, token: token, app: "com.unknown.app"), 403, .topicMismatch),
            (broadcast("broadcast, broadcasts off", channel: f.live, token: token, app: quietApp), 400, .featureNotEnabled),
            (broadcast("broadcast, never existed", channel: "bm9wZQ==", token: token), 400, .badChannelId),
            (broadcast("broadcast, deleted", channel: f.deleted, token: token), 400, .channelNotRegistered),
            (broadcast("broadcast, another app's", channel: f.otherApps, token: token), 400, .channelNotRegistered),
            (broadcast("broadcast, no storage, later", channel: f.noStorage, token: token, expiration: "4102444800"), 400, .badExpirationDate),
            (broadcast("broadcast, empty", channel: f.live, token: token, body: ""), 400, .payloadEmpty),
            (broadcast("broadcast, 5121 bytes", channel: f.live, token: token, body: Self.payload(size: 5121)), 413, .payloadTooLarge),
        ]
    }

    /// A Live Activity update of exactly `size` bytes.
    static func payload(size: Int) -> String {
        let head = #"{"aps":{"event":"update","timestamp":1,"content-state":{"pad":""#, tail = #""}}}"#
        return head + String(repeating: "x", count: size - head.utf8.count - tail.utf8.count) + tail
    }

    static func check(_ answers: [ChannelWire.Answer], against table: [(Request, Int, APNsReason?)], client: String,
                      environment: APNsEnvironment) {
        #expect(answers.count == table.count)
        for (answer, (request, status, reason)) in zip(answers, table) {
            let label = "\(client), \(environment): \(request.label)"
            #expect(answer.status == status, "\(label): \(answer.body)")
            #expect(answer.reason == reason?.wireValue, "\(label): \(answer.body)")
            if reason != nil {
                #expect(answer.headers["content-type"] == "application/json", "\(label)")
                #expect(answer.body == #"{"reason":"\#(reason?.wireValue ?? "")"}"#, "\(label)")
            }
            if let requestID = answer.headers["apns-request-id"] {
                #expect(requestID.count == 36, "\(label): \(requestID)")
            } else {
                Issue.record("\(label): no apns-request-id")
            }
            #expect(answer.headers["apns-id"] == nil, "\(label): a broadcast or channel answer carries apns-request-id, not apns-id")
        }
    }

    @Test(arguments: ["ours", "python h2"])
    func everyStatusAndReasonOnBothEnvironments(client: String) async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let token = try Acceptance.providerToken()
        for environment in APNsEnvironment.allCases {
            let fixture = try Self.fixture(mock, environment)
            let table = Self.table(token: token, fixture)
            let requests = table.map(\.0)
            let answers = client == "ours"
                ? try await ChannelWire.sendWithOurClient(requests, environment: environment, to: mock)
                : try await ChannelWire.sendWithPython(requests, environment: environment, to: mock)
            Self.check(answers, against: table, client: client, environment: environment)
            guard answers.count == table.count else { continue }
            // The answers' own content: the echoed request id, the created id, the read and the list.
            let byLabel = Dictionary(zip(requests.map(\.label), answers), uniquingKeysWith: { first, _ in first })
            #expect(byLabel["broadcast"]?.headers["apns-request-id"] == Self.requestID)
            let created = byLabel["create"]?.headers["apns-channel-id"] ?? ""
            #expect(Data(base64Encoded: created)?.count == 16, "created id \(created)")
            #expect(byLabel["read"]?.body == #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#
                || byLabel["read"]?.body == #"{"push-type":"LiveActivity","message-storage-policy":1}"#)
            let listed = try JSONSerialization.jsonObject(with: Data((byLabel["list"]?.body ?? "").utf8)) as? [String: [String]]
            let listedIDs = Set(listed?["channels"] ?? [])
            #expect(listedIDs.isSuperset(of: [fixture.live, fixture.noStorage, created]))
            #expect(listed?["channels"]?.contains(fixture.otherApps) == false, "another app's channel is not listed")
            #expect(mock.channels.lookup(fixture.doomed, environment: environment) == .deleted)
        }
        // The start event is accepted with its lint, in the capture.
        let starts = mock.capture.records().filter { $0.lintWarnings.contains { $0.code == PushLintCode.broadcastStartEvent } }
        #expect(starts.count == 2)
    }

    @Test func aSandboxChannelDoesNotExistOnProduction() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let token = try Acceptance.providerToken()
        let create = Self.channel("create", "POST", token: token, body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        let created = try await ChannelWire.sendWithOurClient([create], environment: .sandbox, to: mock)
        let id = try #require(created.first?.headers["apns-channel-id"])
        let read = Self.channel("read", "GET", token: token, headers: [("apns-channel-id", id)])
        let send = Self.broadcast("send", channel: id, token: token)
        let onProduction = try await ChannelWire.sendWithOurClient([read, send], environment: .production, to: mock)
        #expect(onProduction.map(\.reason) == ["BadChannelId", "BadChannelId"])
        let onSandbox = try await ChannelWire.sendWithOurClient([read, send], environment: .sandbox, to: mock)
        #expect(onSandbox.map(\.status) == [200, 200])
        #expect(mock.channels.count(environment: .production) == 0 && mock.channels.count(environment: .sandbox) == 1)
    }

    @Test func aDevicePushWithTheBroadcastHeadersIsLintedNotRefused() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let push = Acceptance.push(token: try Acceptance.providerToken(),
                                   extra: [("apns-channel-id", "bm9wZQ=="), ("apns-request-id", Self.requestID)])
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let answer = try await client.send(push)
        await client.close()
        #expect(answer.status == 200 && answer.headers["apns-request-id"] == nil && answer.headers["apns-id"] != nil)
        let lints = mock.capture.records().first?.lintWarnings.filter { $0.code == PushLintCode.unknownAPNsHeader }.compactMap(\.path)
        #expect(lints == ["apns-channel-id", "apns-request-id"])
    }

    @Test func certificateConnectionsManageTheCertificatesApp() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.clientCAPath = "\(Acceptance.certs)/ca.pem"
            $0.registry.bundleIDs.insert(Self.otherApp)
        }
        defer { mock.stop() }
        let identity = (certificate: "\(Acceptance.certs)/client.pem", key: "\(Acceptance.certs)/client.key")
        let client = try Acceptance.client(for: mock.channelSandboxURL, trust: mock.trustRootsPath, identity: identity)
        let body = Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8)
        let own = try await client.send(HTTPClientRequest(method: "POST", path: "/1/apps/\(Self.app)/channels", body: body))
        let other = try await client.send(HTTPClientRequest(method: "POST", path: "/1/apps/\(Self.otherApp)/channels", body: body))
        await client.close()
        #expect(own.status == 201)
        #expect(other.status == 403 && String(decoding: other.body, as: UTF8.self) == #"{"reason":"TopicMismatch"}"#)
    }
}
