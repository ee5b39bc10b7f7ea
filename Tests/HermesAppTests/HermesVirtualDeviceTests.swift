import Foundation
import HTTPTransport
import HermesApp
import HermesContract
import JWTVerify
import MockAPNs
import Testing

/// The virtual device against a real mock: pushes go in over HTTP/2 with a provider
/// token, the device reads them back from the control API and runs the app logic.
@Suite(.timeLimit(.minutes(2))) struct HermesVirtualDeviceTests {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let token = String(repeating: "ab", count: 32)
    static let otherToken = String(repeating: "cd", count: 32)

    static func client(for mock: MockAPNsServer) throws -> HTTP2Client {
        let address = mock.sandboxURL.split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        var configuration = HTTP2ClientConfiguration(
            host: String(address[..<colon]), port: Int(address[address.index(after: colon)...]) ?? 0,
            tls: mock.trustRootsPath.map { .makeClientConfiguration(trustRootsPath: $0) })
        configuration.serverName = "localhost"
        return try HTTP2Client(configuration: configuration)
    }

    /// The request the gateway would send for `notification` (contract §3).
    static func providerToken() throws -> String {
        let key = try ES256PrivateKey(contentsOfFile: "\(certs)/AuthKey_ABC123DEFG.p8")
        return try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
    }

    /// One provider token for the whole run: APNs (and the mock) refuse a connection
    /// that changes its token too often.
    static let sharedProviderToken = Result { try providerToken() }

    static func request(_ notification: HermesNotification, device: String = token, topic: String = "com.example.app") throws -> HTTPClientRequest {
        let providerToken = try sharedProviderToken.get()
        let headers: HTTPHeaders = [
            "authorization": "bearer \(providerToken)", "apns-topic": topic,
            "apns-push-type": HermesNotification.pushType, "apns-priority": String(HermesNotification.priority),
            "apns-collapse-id": notification.collapseID,
            "apns-expiration": String(notification.expiration(sentAt: Int64(Date().timeIntervalSince1970))),
        ]
        return HTTPClientRequest(method: "POST", path: "/3/device/\(device)", headers: headers, body: notification.payload())
    }

    @Test func eachAcceptedPushForTheDeviceGoesThroughTheAppLogic() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs)
        defer { mock.stop() }
        let client = try Self.client(for: mock)
        let device = HermesVirtualDevice(controlURL: try #require(URL(string: mock.controlURL)), deviceToken: Self.token.uppercased())
        await device.handler.setForeground(true)
        await device.handler.setViewing(sessionID: "sess-2")

        #expect(try await client.send(Self.request(HermesNotification(type: .approval, sessionID: "sess-1"))).status == 200)
        #expect(try await client.send(Self.request(HermesNotification(type: .complete, sessionID: "sess-2"))).status == 200)
        // Neither of these reaches the device: another token, and a rejected push.
        #expect(try await client.send(Self.request(HermesNotification(type: .error, sessionID: "x"), device: Self.otherToken)).status == 200)
        #expect(try await client.send(Self.request(HermesNotification(type: .error, sessionID: "y"), topic: "com.unknown.app")).status == 400)

        let first = try await device.waitForDeliveries(count: 2, timeout: 20)
        #expect(first.count == 2)
        let approval = try #require(first.first?.outcome)
        #expect(approval.notification.type == .approval)
        #expect(approval.tapRoute == .session("sess-1"), "the app would open sess-1")
        #expect(approval.presentation == .banner)
        #expect(approval.badge == 1)
        #expect(first.first?.collapseID == "approval:sess-1")
        #expect(first.first?.pushType == "alert" && first.first?.priority == 10)
        let complete = try #require(first.last?.outcome)
        #expect(complete.presentation == .suppressedViewingSession, "the user is viewing sess-2: no banner")

        // Later pushes are picked up by the next poll, and only those.
        #expect(try await client.send(Self.request(HermesNotification(type: .clarify, sessionID: "sess-3"))).status == 200)
        let second = try await device.waitForDeliveries(count: 1, timeout: 20)
        #expect(second.map { $0.outcome?.tapRoute } == [.session("sess-3")])
        #expect(await device.deliveries.count == 3)
        #expect(await device.deliveries.allSatisfy { $0.outcome?.notification.sessionID != "x" && $0.outcome?.notification.sessionID != "y" })
        await client.close()
    }

    @Test func aPollWithNothingNewTimesOutEmpty() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Self.certs)
        defer { mock.stop() }
        let device = HermesVirtualDevice(controlURL: try #require(URL(string: mock.controlURL)), deviceToken: Self.token)
        #expect(try await device.poll(timeout: 0.2).isEmpty)
    }

    @Test func anUnreachableControlAPIIsAClearError() async throws {
        let device = HermesVirtualDevice(controlURL: try #require(URL(string: "http://127.0.0.1:9")), deviceToken: Self.token)
        await #expect(throws: HermesVirtualDeviceError.self) { try await device.poll(timeout: 1) }
    }
}
