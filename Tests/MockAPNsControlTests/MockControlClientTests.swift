import APNsCapture
import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
@testable import MockAPNsControl
import StrictJSON
import Testing

/// The control-API client against a running mock.
@Suite(.timeLimit(.minutes(1)))
struct MockControlClientTests {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let deviceA = String(repeating: "ab", count: 32)
    static let deviceB = String(repeating: "cd", count: 32)

    static func startMock() throws -> MockAPNsServer {
        try MockAPNsServer.startForTesting(certsDirectory: certs) { $0.server.tlsEnabled = false }
    }

    static func apnsClient(_ mock: MockAPNsServer, url: String? = nil) throws -> HTTP2Client {
        let address = (url ?? mock.productionURL).split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        let host = String(address[..<colon]), port = Int(address[address.index(after: colon)...]) ?? 0
        return try HTTP2Client(configuration: HTTP2ClientConfiguration(host: host, port: port))
    }

    /// One provider token for all of a test's pushes: a new one per push on the same
    /// connection is `TooManyProviderTokenUpdates`.
    static let providerToken = Result { () throws -> String in
        let key = try ES256PrivateKey(contentsOfFile: "\(certs)/AuthKey_ABC123DEFG.p8")
        return try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
    }

    /// Sends one push; with `signed` false it is rejected for its missing provider token.
    static func push(_ client: HTTP2Client, to device: String, signed: Bool = true) async throws {
        var headers: HTTPHeaders = ["apns-topic": "com.example.app", "apns-push-type": "alert"]
        if signed { headers.add(name: "authorization", value: "bearer \(try providerToken.get())") }
        _ = try await client.send(HTTPClientRequest(method: "POST", path: "/3/device/\(device)", headers: headers,
                                                    body: Array(#"{"aps":{"alert":"hi"}}"#.utf8)))
    }

    @Test func listsPushesWithFiltersAndLimitAndClearsThem() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let apns = try Self.apnsClient(mock)
        try await Self.push(apns, to: Self.deviceA)
        try await Self.push(apns, to: Self.deviceB)
        try await Self.push(apns, to: Self.deviceA, signed: false)

        #expect(try await control.pushes().count == 3)
        let toA = try await control.pushes(matching: CaptureFilter(deviceToken: DeviceToken(Self.deviceA)))
        #expect(toA.count == 2)
        let rejected = try await control.pushes(matching: CaptureFilter(outcome: .rejected))
        #expect(rejected.map(\.outcome.status) == [403])
        let byReason = try await control.pushes(matching: CaptureFilter(reason: .missingProviderToken))
        #expect(byReason.count == 1)
        let newest = try await control.pushes(limit: 1)
        #expect(newest.map(\.outcome.status) == [403])

        try await control.clearPushes()
        #expect(try await control.pushes().isEmpty)
        await control.close()
        await apns.close()
    }

    /// The filters push-inspect sends: push type (as settled), environment, unique id and a
    /// device-token prefix in any case.
    @Test func filtersByPushTypeEnvironmentUniqueIDAndTokenPrefix() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let production = try Self.apnsClient(mock)
        let sandbox = try Self.apnsClient(mock, url: mock.sandboxURL)
        try await Self.push(production, to: Self.deviceA)
        try await Self.push(sandbox, to: Self.deviceB)
        // No apns-push-type: the mock infers background from the payload, and filters by that.
        _ = try await sandbox.send(HTTPClientRequest(
            method: "POST", path: "/3/device/\(Self.deviceA)",
            headers: ["apns-topic": "com.example.app", "apns-priority": "5", "authorization": "bearer \(try Self.providerToken.get())"],
            body: Array(#"{"aps":{"content-available":1}}"#.utf8)))

        #expect(try await control.pushes(matching: CaptureFilter(environment: .production)).map(\.deviceToken?.hex) == [Self.deviceA])
        #expect(try await control.pushes(matching: CaptureFilter(environment: .sandbox)).count == 2)
        let background = try await control.pushes(matching: CaptureFilter(pushType: .background))
        #expect(background.count == 1 && background.first?.environment == .sandbox)
        #expect(try await control.pushes(matching: CaptureFilter(deviceTokenPrefix: "CDCD")).map(\.deviceToken?.hex) == [Self.deviceB])
        #expect(try await control.pushes(matching: CaptureFilter(deviceTokenPrefix: "abab")).count == 2)
        let uniqueID = try #require(background.first?.outcome.uniqueID)
        let byUniqueID = try await control.pushes(matching: CaptureFilter(uniqueID: uniqueID.uppercased()))
        #expect(byUniqueID.map(\.sequence) == background.map(\.sequence))

        // A prefix that is not hex is refused, not matched against nothing.
        let raw = try Self.apnsClient(mock, url: mock.controlURL)
        let refused = try await raw.send(HTTPClientRequest(path: "/pushes?device_token_prefix=xyz"))
        #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("device_token_prefix: expected hex digits"))
        let badType = try await raw.send(HTTPClientRequest(path: "/pushes?push_type=banner"))
        #expect(badType.status == 400)
        await raw.close()
        await control.close()
        await production.close()
        await sandbox.close()
    }

    @Test func aWaitIsSatisfiedOrTimesOutWithWhatThereIs() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let apns = try Self.apnsClient(mock)
        let filter = CaptureFilter(deviceToken: DeviceToken(Self.deviceA))
        async let waited = control.waitForPushes(matching: filter, count: 2, timeout: .seconds(20))
        try await Self.push(apns, to: Self.deviceB)
        try await Self.push(apns, to: Self.deviceA)
        try await Self.push(apns, to: Self.deviceA)
        let satisfied = try await waited
        #expect(satisfied.satisfied)
        #expect(satisfied.records.count == 2)

        let short = try await control.waitForPushes(matching: filter, count: 3, timeout: .milliseconds(200))
        #expect(!short.satisfied)
        #expect(short.records.count == 2)
        await control.close()
        await apns.close()
    }

    @Test func replacesAndListsDevices() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let device: JSONValue = ["token": .string(Self.deviceA), "bundle_id": "com.example.app", "environment": "sandbox"]
        let answered = try await control.replaceDevices([device], acceptUnknownDevices: false)
        #expect(answered.count == 1)
        let listed = try await control.devices()
        guard case .object(let members)? = listed.first else { Issue.record("no device listed"); return }
        #expect(members["token"]?.stringValue == Self.deviceA)
        await control.close()
    }

    @Test func addsListsAndRemovesFaults() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let apns = try Self.apnsClient(mock)
        try await control.addFault(["id": "boom", "count": 3, "action": ["type": "status", "reason": "InternalServerError"]])
        try await Self.push(apns, to: Self.deviceA)
        let faults = try await control.faults()
        #expect(faults.map(\.id) == ["boom"])
        #expect(faults.first?.fired == 1)
        #expect(faults.first?.remaining == 2)

        try await control.removeFault(id: "boom")
        #expect(try await control.faults().isEmpty)
        await #expect(throws: MockControlError.self) { try await control.removeFault(id: "boom") }
        await control.close()
        await apns.close()
    }

    @Test func aRefusedConnectionIsCannotConnect() async throws {
        let control = try MockControlClient(baseURL: "http://127.0.0.1:1")
        let error = await #expect(throws: MockControlError.self) { _ = try await control.pushes() }
        #expect(error?.kind == .cannotConnect)
        #expect(error?.description.contains("cannot reach the mock's control API") == true)
        await control.close()
    }

    @Test func aRefusedRequestCarriesTheStatusAndTheControlAPIsMessage() async throws {
        let mock = try Self.startMock()
        defer { mock.stop() }
        let control = try MockControlClient(baseURL: mock.controlURL)
        let error = await #expect(throws: MockControlError.self) { try await control.addFault(["action": [:]]) }
        guard case .answered(let status, let message)? = error?.kind else { Issue.record("not answered: \(String(describing: error))"); return }
        #expect(status == 400)
        #expect(message?.contains("action") == true)
        #expect(error?.description.contains("POST /faults: the control API answered 400: \"") == true)

        let missing = await #expect(throws: MockControlError.self) { try await control.removeFault(id: "none") }
        if case .answered(let status, _)? = missing?.kind { #expect(status == 404) } else { Issue.record("not answered") }
        await control.close()
    }

    @Test func aBaseURLThatIsNotHTTPHostPortIsRefused() {
        #expect(throws: MockControlError.self) { try MockControlClient(baseURL: "https://127.0.0.1:2199") }
        #expect(throws: MockControlError.self) { try MockControlClient(baseURL: "http://127.0.0.1") }
        #expect(throws: MockControlError.self) { try MockControlClient(baseURL: "http://127.0.0.1:2199/pushes?x=1") }
    }

    @Test func aMessageFromTheControlAPIIsQuotedEscapedAndCutShort() {
        let hostile = MockControlError(.answered(status: 400, error: "red\u{1B}[31m" + String(repeating: "x", count: 600)),
                                       request: "GET /pushes", "")
        #expect(!hostile.description.contains("\u{1B}"))
        #expect(hostile.description.hasPrefix("GET /pushes: the control API answered 400: \"red\\u001b[31m"))
        #expect(hostile.description.hasSuffix("\" (cut short)"))
    }
}

extension MockControlClientTests {
    /// A lost connection fails the call it cut, and the next call connects again.
    @Test func aCallAfterALostConnectionConnectsAgain() async throws {
        let first = try Self.startMock()
        let control = try MockControlClient(baseURL: first.controlURL)
        #expect(try await control.pushes().isEmpty)
        let url = first.controlURL
        first.stop()
        await #expect(throws: MockControlError.self) { _ = try await control.pushes() }
        let port = Int(url.split(separator: ":").last ?? "") ?? 0
        // The freed port may be taken a moment by a parallel test's connection or listener:
        // try again for a while rather than fail on a clash that says nothing of the client.
        var restarted: MockAPNsServer?
        for _ in 0..<100 where restarted == nil {
            restarted = try? MockAPNsServer.startForTesting(certsDirectory: Self.certs) {
                $0.server.tlsEnabled = false
                $0.server.controlPort = port
            }
            if restarted == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let second = try #require(restarted, "port \(port) stayed taken")
        defer { second.stop() }
        #expect(try await control.pushes().isEmpty)
        await control.close()
    }
}
