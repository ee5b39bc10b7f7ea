import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// Apple's delivery rules, driven by real pushes over HTTP/2 against online and offline
/// times on a manual clock: the log, the capture file's delivery lines and the control API
/// must agree.
@Suite(.timeLimit(.minutes(3)))
struct DeliveryOverHTTP2Tests {
    static let device = Acceptance.deviceToken
    static let token = DeviceToken(device)!

    /// A mock with delivery on, a capture file, and the clock.
    static func start(_ clock: ManualClock, adjust: (inout DeliverySettings) -> Void = { _ in }) throws -> (MockAPNsServer, String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("delivery-\(UUID().uuidString).jsonl").path
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs, configure: { configuration in
            configuration.delivery.enabled = true
            adjust(&configuration.delivery)
            configuration.server.captureFilePath = file
        }, now: clock.closure)
        return (mock, file)
    }

    /// Sends pushes in order on one connection; returns their apns-ids.
    @discardableResult
    static func send(_ mock: MockAPNsServer, _ pushes: [(id: String, extra: [(String, String)], pushType: String, topic: String, body: String)]) async throws -> [String] {
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        for push in pushes {
            let response = try await client.send(Acceptance.push(
                token: token, topic: push.topic, body: push.body, pushType: push.pushType, extra: [("apns-id", push.id)] + push.extra))
            #expect(response.status == 200, "push \(push.id)")
        }
        await client.close()
        return pushes.map(\.id)
    }

    static func alert(_ id: String, _ extra: [(String, String)] = [], body: String = Acceptance.alertBody) -> (id: String, extra: [(String, String)], pushType: String, topic: String, body: String) {
        (id, extra, "alert", Acceptance.topic, body)
    }

    static func id(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

    static func states(_ mock: MockAPNsServer, _ id: String) -> [String] {
        mock.delivery.record(apnsID: id)?.events.map { [$0.state.rawValue, $0.why?.rawValue].compactMap { $0 }.joined(separator: ":") } ?? []
    }

    @Test func offlineWindowStoresOnlyTheNewestPerAppDropsExpiredOnesAndDeliversOnReturn() async throws {
        let clock = ManualClock(Date())
        let (mock, file) = try Self.start(clock)
        defer { mock.stop() }
        let start = clock.now
        // Offline from t+10 s for 30 s.
        mock.delivery.schedule(DeviceConnectivityPlan(offlineWindows: [.init(start: 10, duration: 30)]), for: Self.token)
        try await Self.send(mock, [Self.alert(Self.id(1))])
        clock.advance(15)
        #expect(mock.delivery.connectivity(of: Self.token) == .offline)
        let soon = Int(start.timeIntervalSince1970) + 20
        try await Self.send(mock, [
            Self.alert(Self.id(2), [("apns-expiration", "0")]),
            Self.alert(Self.id(3)),
            Self.alert(Self.id(4), [("apns-expiration", "\(Int(start.timeIntervalSince1970) + 3600)")]),
            (Self.id(5), [("apns-expiration", "\(soon)")], "voip", Acceptance.topic + ".voip", #"{"call":1}"#),
        ])
        #expect(mock.delivery.storedPushCount == 2, "one per topic: the alert and the voip push")
        clock.advance(10)  // t+25: the voip push expired at t+20.
        clock.advance(16)  // t+41: online since t+40.
        mock.delivery.advance()

        #expect(Self.states(mock, Self.id(1)) == ["delivered"])
        #expect(Self.states(mock, Self.id(2)) == ["discarded:expired"], "expiration 0: one attempt, offline")
        #expect(Self.states(mock, Self.id(3)) == ["stored:offline", "discarded:coalesced"])
        #expect(mock.delivery.record(apnsID: Self.id(3))?.events.last?.by == Self.id(4))
        #expect(Self.states(mock, Self.id(4)) == ["stored:offline", "delivered"])
        #expect(Self.states(mock, Self.id(5)) == ["stored:offline", "discarded:expired"])
        let delivered = try #require(mock.delivery.record(apnsID: Self.id(4))?.events.last?.at)
        #expect(abs(delivered.timeIntervalSince(start) - 40) < 0.001, "delivered when the window ended, not when looked at")
        let expired = try #require(mock.delivery.record(apnsID: Self.id(5))?.events.last?.at)
        #expect(abs(expired.timeIntervalSince1970 - Double(soon)) < 0.001)
        #expect(mock.delivery.notificationCentre(for: Self.token).notifications.map(\.apnsID) == [Self.id(1), Self.id(4)])
        #expect(mock.delivery.storedPushCount == 0)

        // The log agrees with the capture file: every change, in order, once.
        mock.capture.flush()
        var lines: [CaptureDeliveryEvent] = []
        let reader = try CaptureFileReader(path: file)
        reader.onOtherKindLine = { line in if let event = try? CaptureDeliveryEvent(decoding: line) { lines.append(event) } }
        var pushes = 0
        while try reader.next() != nil { pushes += 1 }
        #expect(pushes == 5 && reader.warningCount == 0, "delivery lines are skipped by push readers without a warning")
        for n in 1...5 {
            let record = try #require(mock.delivery.record(apnsID: Self.id(n)))
            let fromFile = lines.filter { $0.apnsID == Self.id(n) }
            #expect(fromFile.map(\.state) == record.events.map(\.state.rawValue))
            #expect(fromFile.map(\.why) == record.events.map(\.why?.rawValue))
            #expect(fromFile.map(\.timeMicroseconds) == record.events.map { Int64(($0.at.timeIntervalSince1970 * 1_000_000).rounded()) })
            #expect(fromFile.allSatisfy { $0.uniqueID == record.uniqueID && $0.deviceToken == Self.token })
        }
        let captured = mock.capture.records()
        #expect(captured.map(\.outcome.apnsID) == (1...5).map(Self.id))
        #expect(captured.map(\.outcome.uniqueID) == (1...5).map { mock.delivery.record(apnsID: Self.id($0))?.uniqueID })
    }

    @Test func aCollapseIDReplacesTheShownNotificationAndTheBadgeIsTheLastOneSet() async throws {
        let clock = ManualClock(Date())
        let (mock, _) = try Self.start(clock)
        defer { mock.stop() }
        try await Self.send(mock, [
            Self.alert(Self.id(1), [("apns-collapse-id", "c")], body: #"{"aps":{"alert":"one","badge":3}}"#),
            Self.alert(Self.id(2)),
            Self.alert(Self.id(3), [("apns-collapse-id", "c")], body: #"{"aps":{"alert":"three"}}"#),
        ])
        #expect(Self.states(mock, Self.id(1)) == ["delivered", "replaced_on_screen"])
        #expect(mock.delivery.record(apnsID: Self.id(1))?.events.last?.by == Self.id(3))
        let centre = mock.delivery.notificationCentre(for: Self.token)
        #expect(centre.notifications.map(\.apnsID) == [Self.id(2), Self.id(3)])
        #expect(centre.badges == [Acceptance.topic: 3])
        #expect(centre.notifications.last?.payload == Array(#"{"aps":{"alert":"three"}}"#.utf8))
    }

    @Test func priorityFiveWaitsForTheConfiguredDelayAndBackgroundPushesForTheirBudget() async throws {
        let clock = ManualClock(Date())
        let (mock, _) = try Self.start(clock) { settings in
            settings.powerDelay = 60
            settings.backgroundBudget = .init(count: 1, window: 3600)
        }
        defer { mock.stop() }
        let background = #"{"aps":{"content-available":1}}"#
        try await Self.send(mock, [
            Self.alert(Self.id(1), [("apns-priority", "5")]),
            Self.alert(Self.id(2)),
            (Self.id(3), [("apns-priority", "5")], "background", Acceptance.topic, background),
        ])
        #expect(Self.states(mock, Self.id(1)) == ["stored:power", "discarded:coalesced"], "one held push per app")
        #expect(Self.states(mock, Self.id(2)) == ["delivered"])
        #expect(Self.states(mock, Self.id(3)) == ["stored:power"])
        clock.advance(60)
        mock.delivery.advance()
        #expect(Self.states(mock, Self.id(3)) == ["stored:power", "delivered"])
        try await Self.send(mock, [(Self.id(4), [("apns-priority", "5")], "background", Acceptance.topic, background)])
        clock.advance(60)
        #expect(Self.states(mock, Self.id(4)) == ["stored:power", "discarded:budget"], "over the budget of one an hour")
    }

    @Test func aPushToAnUnregisteredDeviceIsLoggedWithWhy() async throws {
        let clock = ManualClock(Date())
        let (mock, _) = try Self.start(clock)
        defer { mock.stop() }
        var registry = mock.registry
        registry.devices[Self.token] = RegisteredDevice(token: Self.token, bundleID: Acceptance.topic, environment: .sandbox,
                                                        state: .unregistered(since: Date()))
        mock.replaceRegistry(registry)
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let response = try await client.send(Acceptance.push(token: try Acceptance.providerToken(), extra: [("apns-id", Self.id(9))]))
        await client.close()
        #expect(response.status == 410)
        #expect(Self.states(mock, Self.id(9)) == ["rejected:unregistered"])
    }

    @Test func theControlAPISetsConnectivityLooksUpRecordsAndWaitsForAState() async throws {
        let clock = ManualClock(Date())
        let (mock, _) = try Self.start(clock)
        defer { mock.stop() }
        let control = try Acceptance.client(for: mock.controlURL, trust: nil)
        func call(_ method: String, _ path: String, _ body: String = "") async throws -> (Int, [String: JSONValue]) {
            let headers: HTTPHeaders = method == "GET" ? [:] : ["content-type": "application/json"]
            let response = try await control.send(HTTPClientRequest(method: method, path: path, headers: headers, body: Array(body.utf8)))
            guard case .object(let object) = try JSONParser.parse(response.body) else { return (response.status, [:]) }
            return (response.status, object)
        }
        let (status, device) = try await call("PUT", "/delivery/devices/\(Self.device)", #"{"connectivity":"offline"}"#)
        #expect(status == 200 && device["connectivity"] == .string("offline"))
        try await Self.send(mock, [Self.alert(Self.id(1))])
        let record = mock.delivery.record(apnsID: Self.id(1))
        let uniqueID = try #require(record?.uniqueID)

        // A wait that times out says so, with the record as it stands.
        let (timedOut, late) = try await call("GET", "/delivery/wait?apns_id=\(Self.id(1))&state=delivered&timeout=0.2")
        #expect(timedOut == 408 && late["satisfied"] == .bool(false))
        async let waited = call("GET", "/delivery/wait?unique_id=\(uniqueID)&state=delivered&timeout=20")
        let waiting = await pollUntil { mock.delivery.pendingWaitCount == 1 }
        #expect(waiting)
        _ = try await call("PUT", "/delivery/devices/\(Self.device)", #"{"connectivity":"online"}"#)
        let (waitStatus, answer) = try await waited
        #expect(waitStatus == 200 && answer["satisfied"] == .bool(true))

        for query in ["apns_id=\(Self.id(1))", "unique_id=\(uniqueID)", "device_token=\(Self.device)"] {
            let (found, listing) = try await call("GET", "/delivery?\(query)")
            guard case .array(let records)? = listing["records"], case .object(let first)? = records.first else {
                Issue.record("no records for \(query)")
                continue
            }
            #expect(found == 200 && first["state"] == .string("delivered") && first["apns_id"] == .string(Self.id(1)))
        }
        let (centreStatus, centre) = try await call("GET", "/delivery/devices/\(Self.device)/notifications")
        guard case .array(let shown)? = centre["notifications"] else { Issue.record("no notifications"); return }
        #expect(centreStatus == 200 && shown.count == 1)
        #expect(try await call("GET", "/delivery?apns_id=x&unique_id=y").0 == 400)
        #expect(try await call("GET", "/delivery/wait?apns_id=x&state=shown").0 == 400)
        #expect(try await call("PUT", "/delivery/devices/zz", "{}").0 == 400)
        #expect(try await call("POST", "/delivery").0 == 405)
        let form = try await control.send(HTTPClientRequest(method: "PUT", path: "/delivery/devices/\(Self.device)", headers: [:],
                                                            body: Array(#"{"connectivity":"offline"}"#.utf8)))
        #expect(form.status == 415 && mock.delivery.connectivity(of: Self.token) == .online, "a change needs content-type: application/json")
        await control.close()
    }

    @Test func withTheModelOffTheRoutesSaySoAndNothingIsLogged() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        try await Self.send(mock, [Self.alert(Self.id(1))])
        #expect(mock.delivery.record(apnsID: Self.id(1)) == nil)
        let control = try Acceptance.client(for: mock.controlURL, trust: nil)
        let response = try await control.send(HTTPClientRequest(method: "GET", path: "/delivery/devices", headers: [:], body: []))
        await control.close()
        #expect(response.status == 409)
    }
}
