import APNsClient
import APNsCore
import Foundation
import HTTPTransport
import PushTestSupport
import StrictJSON
import Testing

/// The channel management API and broadcasts as the client sends them, against a scripted
/// cleartext HTTP/2 server: each request's method, path, headers and body as Apple documents
/// them, and each answer (success and error) as the typed result.
struct APNsClientChannelRequestTests {
    static let bundleID = "com.example.app"
    static let channelID = "dHN0LXNyY2gtY2hubA=="
    static let requestID = "0f3c9a7e-51d2-4b0e-8000-0000000000c1"

    /// A client whose APNs and channel management destinations (both environments) are `server`.
    static func client(_ server: RecordingHTTPServer) throws -> APNsClient {
        var configuration = APNsClientConfiguration(
            authentication: .token(signingKey: try ClientFixtures.signingKey(), keyID: ClientFixtures.keyID, teamID: ClientFixtures.teamID))
        let destination = try APNsDestination(url: server.baseURL)
        configuration.production = destination
        configuration.sandbox = destination
        configuration.channelManagementProduction = destination
        configuration.channelManagementSandbox = destination
        configuration.requestTimeout = .seconds(10)
        configuration.idlePingInterval = nil
        configuration.retryPolicy.initialBackoff = .milliseconds(1)
        return try APNsClient(configuration: configuration)
    }

    static func answer(_ status: Int, _ headers: HTTPHeaders = [:], body: String? = nil, echo request: RecordingHTTPServer.Request) -> HTTPResponse {
        var headers = headers
        if let id = request.headers["apns-request-id"] { headers.add(name: "apns-request-id", value: id) }
        return HTTPResponse(status: status, headers: headers, body: body.map { Array($0.utf8) })
    }

    @Test func createPostsThePolicyAndReadsTheChannelIDOfThe201() async throws {
        let server = try RecordingHTTPServer { request, _ in
            Self.answer(201, ["apns-channel-id": Self.channelID], echo: request)
        }
        defer { server.stop() }
        let client = try Self.client(server)
        let channel = try await client.createChannel(
            bundleID: Self.bundleID, messageStoragePolicy: .mostRecentMessageStored, environment: .sandbox, requestID: Self.requestID)
        await client.shutdown()
        #expect(channel == APNsChannel(id: Self.channelID, messageStoragePolicy: .mostRecentMessageStored, pushType: "LiveActivity"))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/1/apps/com.example.app/channels")
        #expect(request.headers["apns-request-id"] == Self.requestID)
        #expect(request.headers["authorization"]?.hasPrefix("bearer ") == true)
        let body = try JSONParser.parse(request.body)
        #expect(body == ["message-storage-policy": 1, "push-type": "LiveActivity"])
    }

    @Test func readDeleteAndListSendTheChannelIDAndReadTheirAnswers() async throws {
        let server = try RecordingHTTPServer { request, _ in
            switch (request.method, request.path) {
            case ("GET", "/1/apps/com.example.app/channels"):
                Self.answer(200, body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#, echo: request)
            case ("DELETE", "/1/apps/com.example.app/channels"):
                Self.answer(204, echo: request)
            case ("GET", "/1/apps/com.example.app/all-channels"):
                Self.answer(200, body: #"{"channels":["\#(Self.channelID)","b3RoZXI="]}"#, echo: request)
            default:
                Self.answer(404, body: #"{"reason":"BadPath"}"#, echo: request)
            }
        }
        defer { server.stop() }
        let client = try Self.client(server)
        let channel = try await client.channel(Self.channelID, bundleID: Self.bundleID, environment: .production)
        try await client.deleteChannel(Self.channelID, bundleID: Self.bundleID, environment: .production)
        let ids = try await client.channelIDs(bundleID: Self.bundleID, environment: .production)
        await client.shutdown()
        #expect(channel.messageStoragePolicy == .noMessageStored && channel.id == Self.channelID)
        #expect(ids == [Self.channelID, "b3RoZXI="])
        let requests = server.requests
        #expect(requests.map(\.method) == ["GET", "DELETE", "GET"])
        #expect(requests.map { $0.headers["apns-channel-id"] } == [Self.channelID, Self.channelID, nil])
        #expect(requests.allSatisfy { $0.headers["apns-request-id"].map(APNsIDGenerator.isCanonicalUUID) == true })
        #expect(requests.allSatisfy { $0.body.isEmpty })
    }

    @Test func broadcastPostsToTheBundlePathWithChannelAndLiveActivityHeaders() async throws {
        let server = try RecordingHTTPServer { request, _ in Self.answer(200, echo: request) }
        defer { server.stop() }
        let client = try Self.client(server)
        let payload = Array(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{}}}"#.utf8)
        let response = try await client.broadcast(
            APNsBroadcast(bundleID: Self.bundleID, channelID: Self.channelID, priority: .consideringDevicePower,
                          expiration: .immediately, requestID: Self.requestID, payload: payload),
            environment: .sandbox)
        await client.shutdown()
        #expect(response == APNsBroadcastResponse(requestID: Self.requestID, status: 200, attempts: 1))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST" && request.path == "/4/broadcasts/apps/com.example.app")
        #expect(request.headers["apns-channel-id"] == Self.channelID && request.headers["apns-push-type"] == "liveactivity")
        #expect(request.headers["apns-priority"] == "5" && request.headers["apns-expiration"] == "0")
        #expect(request.headers["apns-topic"] == nil && request.headers["apns-id"] == nil)
        #expect(request.body == payload)
    }

    @Test func errorAnswersBecomeRejectionsWithTheirReasonAndRequestID() async throws {
        let server = try RecordingHTTPServer { request, _ in
            Self.answer(400, ["content-type": "application/json"], body: #"{"reason":"BadExpirationDate"}"#, echo: request)
        }
        defer { server.stop() }
        let client = try Self.client(server)
        do {
            _ = try await client.broadcast(
                APNsBroadcast(bundleID: Self.bundleID, channelID: Self.channelID, requestID: Self.requestID, payload: [0x7b, 0x7d]),
                environment: .sandbox)
            Issue.record("a 400 was taken for a success")
        } catch {
            let rejection = try #require(error.rejection)
            #expect(rejection.status == 400 && rejection.reason == .badExpirationDate && rejection.requestID == Self.requestID)
            #expect(rejection.description == "400 BadExpirationDate (apns-request-id \(Self.requestID))")
        }
        await client.shutdown()
        #expect(server.requests.count == 1, "a 400 is final")
    }

    /// A create whose answer was a 500 may still have made a channel: it is not sent again,
    /// while a read, as a push, is retried.
    @Test func aFailedCreateIsNotRepeatedButAReadIsRetried() async throws {
        let server = try RecordingHTTPServer { request, _ in
            Self.answer(500, ["content-type": "application/json"], body: #"{"reason":"InternalServerError"}"#, echo: request)
        }
        defer { server.stop() }
        let client = try Self.client(server)
        await #expect(throws: APNsClientError.self) {
            _ = try await client.createChannel(bundleID: Self.bundleID, environment: .sandbox)
        }
        #expect(server.requests.count == 1)
        await #expect(throws: APNsClientError.self) {
            _ = try await client.channel(Self.channelID, bundleID: Self.bundleID, environment: .sandbox)
        }
        await client.shutdown()
        #expect(server.requests.count == 1 + client.configuration.retryPolicy.maximumAttempts)
    }

    @Test func successAnswersWithoutWhatAppleDocumentsAreInvalidAnswers() async throws {
        let server = try RecordingHTTPServer { request, index in
            switch index {
            case 0: Self.answer(201, echo: request)
            case 1: Self.answer(200, body: #"{"message-storage-policy":7}"#, echo: request)
            default: Self.answer(200, body: #"{"channels":"x"}"#, echo: request)
            }
        }
        defer { server.stop() }
        let client = try Self.client(server)
        var errors: [String] = []
        for step in 0..<3 {
            do {
                switch step {
                case 0: _ = try await client.createChannel(bundleID: Self.bundleID, environment: .sandbox)
                case 1: _ = try await client.channel(Self.channelID, bundleID: Self.bundleID, environment: .sandbox)
                default: _ = try await client.channelIDs(bundleID: Self.bundleID, environment: .sandbox)
                }
            } catch {
                if case .invalidAnswer(let message) = error { errors.append(message) }
            }
        }
        await client.shutdown()
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.first?.contains("apns-channel-id") == true)
    }

    @Test func requestsThatCannotBeSentAreRefusedBeforeSending() async throws {
        let server = try RecordingHTTPServer { request, _ in Self.answer(200, echo: request) }
        defer { server.stop() }
        let client = try Self.client(server)
        var errors: [APNsClientError?] = []
        do { _ = try await client.createChannel(bundleID: "com.example/app", environment: .sandbox); errors.append(nil) } catch { errors.append(error) }
        do { _ = try await client.channel("a b", bundleID: Self.bundleID, environment: .sandbox); errors.append(nil) } catch { errors.append(error) }
        do { try await client.deleteChannel("", bundleID: Self.bundleID, environment: .sandbox); errors.append(nil) } catch { errors.append(error) }
        do {
            _ = try await client.channelIDs(bundleID: Self.bundleID, environment: .sandbox, requestID: "not-a-uuid")
            errors.append(nil)
        } catch {
            errors.append(error)
        }
        do {
            _ = try await client.broadcast(APNsBroadcast(bundleID: Self.bundleID, channelID: "x\ny", payload: []), environment: .sandbox)
            errors.append(nil)
        } catch {
            errors.append(error)
        }
        #expect(errors.count == 5)
        for error in errors {
            guard case .invalidRequest? = error else { Issue.record("not refused before sending: \(String(describing: error))"); continue }
        }
        await client.shutdown()
        #expect(server.requests.isEmpty)
    }
}
