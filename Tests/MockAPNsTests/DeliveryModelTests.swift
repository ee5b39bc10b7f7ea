import APNsCapture
import APNsCore
import Foundation
@testable import MockAPNs
import PushTestSupport
import Synchronization
import Testing

/// The delivery model fed directly: the rules that need long times, and its memory bound.
@Suite(.timeLimit(.minutes(2)))
struct DeliveryModelTests {
    static func input(_ n: Int, token: DeviceToken, expiration: Int64? = nil, payload: [UInt8] = Array(#"{"aps":{"alert":"x"}}"#.utf8)) -> DeliveryInput {
        DeliveryInput(apnsID: "id-\(n)", uniqueID: nil, deviceToken: token, topic: "com.example.app", pushType: .alert,
                      priority: .immediately, expiration: expiration, collapseID: nil, payload: payload)
    }

    static func token(_ n: Int) -> DeviceToken { DeviceToken(String(format: "%064x", n))! }

    /// The capture record of a push to `token`: accepted, or answered 410 `Unregistered`.
    static func captured(_ n: Int, token: DeviceToken, accepted: Bool = true) -> CaptureRecord {
        CaptureRecord(
            receivedAtMicroseconds: 1_796_378_440_000_000, environment: .sandbox, connectionID: 1, method: "POST",
            path: "/3/device/\(token.hex)", headers: ["apns-topic": "com.example.app"], deviceToken: token, topic: "com.example.app",
            pushType: .alert, priority: .immediately, payload: Array(#"{"aps":{"alert":"x"}}"#.utf8),
            outcome: accepted ? .accepted(apnsID: "id-\(n)", uniqueID: "unique-\(n)")
                : PushOutcome(status: 410, reason: .unregistered, apnsID: "id-\(n)", uniqueID: "unique-\(n)",
                              timestamp: 1_796_378_000_000, connectionAction: .none))
    }

    /// A push's capture line and the delivery lines it causes are one entry of the file's
    /// queue: in the file in order, after the lines before them, even when the file is
    /// closed right after, and acknowledged once, for the push.
    @Test func aFiledPushAndItsDeliveryLinesReachTheFileTogetherInOrder() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("filed-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), capture: store, now: clock.closure)
        let acknowledged = Mutex<[CaptureWriteResult]>([])
        let acknowledgement: CaptureAcknowledgement = { result in acknowledged.withLock { $0.append(result) } }
        let receipts = [
            model.file(Self.captured(1, token: Self.token(1)), recordingIn: store, acknowledgement: acknowledgement),
            model.file(Self.captured(2, token: Self.token(2), accepted: false), recordingIn: store, acknowledgement: acknowledgement),
        ]
        store.close()

        #expect(receipts.map(\.sequence) == [1, 3])
        #expect(acknowledged.withLock { $0 } == [.written, .written])
        var lines: [String] = []
        let reader = try CaptureFileReader(path: path)
        reader.onOtherKindLine = { line in
            if let event = try? CaptureDeliveryEvent(decoding: line) { lines.append("\(event.sequence) \(event.apnsID) \(event.state)") }
        }
        while let record = try reader.next() { lines.append("\(record.sequence) \(record.outcome.apnsID) push") }
        #expect(lines == ["1 id-1 push", "2 id-1 delivered", "3 id-2 push", "4 id-2 rejected"])
        #expect(model.record(apnsID: "id-1")?.state == .delivered && model.record(apnsID: "id-2")?.state == .rejected)
    }

    @Test func aPayloadMayCarryABadgeOnlyWhenItHoldsTheKeyBadge() {
        func may(_ text: String) -> Bool { DeliveryBook.mayCarryBadge(Array(text.utf8)) }
        #expect(may(#""badge""#) && may(#"{"aps":{"badge":1}}"#) && may(#"{"body":"b","x":"badge""#))
        #expect(!may(#"badge""#) && !may(#""badge"#) && !may(#"{"aps":{"badges":1}}"#) && !may(#"{"body":"bbadge"}"#))
        #expect(!may("") && !may(#"{"aps":{"alert":"x"}}"#))
    }

    @Test func aPushWithoutExpirationIsStoredForTheMaximumThenDiscarded() {
        let clock = ManualClock()
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        model.setConnectivity(.offline, for: Self.token(1))
        model.accept(Self.input(1, token: Self.token(1)))
        clock.advance(DeliverySettings.defaultMaximumStorage - 1)
        #expect(model.record(apnsID: "id-1")?.state == .stored)
        clock.advance(2)
        let record = model.record(apnsID: "id-1")
        #expect(record?.state == .discarded && record?.events.last?.why == .expired)
        #expect(record.map { $0.events.last!.at.timeIntervalSince($0.acceptedAt) } == DeliverySettings.defaultMaximumStorage, "30 days")
        model.setConnectivity(.online, for: Self.token(1))
        #expect(model.notificationCentre(for: Self.token(1)).notifications.isEmpty)
    }

    @Test func theConfiguredMaximumStorageApplies() {
        let clock = ManualClock()
        let model = DeliveryModel(settings: DeliverySettings(enabled: true, maximumStorage: 60), now: clock.closure)
        model.setConnectivity(.offline, for: Self.token(1))
        model.accept(Self.input(1, token: Self.token(1)))
        clock.advance(61)
        #expect(model.record(apnsID: "id-1")?.events.last?.why == .expired)
    }

    /// 1,000,000 pushes over 10,000 offline devices: the model holds one stored push per app
    /// per device, and its log no more than the capture ring's window plus those.
    @Test func aMillionPushesToTenThousandOfflineDevicesHoldOnePushPerDevice() {
        let clock = ManualClock()
        let window = 10_000
        let model = DeliveryModel(settings: DeliverySettings(enabled: true, devices: Dictionary(
            uniqueKeysWithValues: (0..<10_000).map { (Self.token($0), DeviceConnectivityPlan(connectivity: .offline)) })),
            logCapacity: window, now: clock.closure)
        let tokens = (0..<10_000).map(Self.token)
        let payload = Array(#"{"aps":{"alert":"x"}}"#.utf8)
        for n in 0..<1_000_000 {
            model.accept(DeliveryInput(apnsID: "id-\(n)", uniqueID: nil, deviceToken: tokens[n % 10_000], topic: "com.example.app",
                                       pushType: .alert, priority: .immediately, expiration: nil, collapseID: nil, payload: payload))
            if n % 100_000 == 0 {
                #expect(model.storedPushCount <= 10_000 && model.recordCount <= window + 10_000)
            }
        }
        #expect(model.storedPushCount == 10_000)
        #expect(model.recordCount <= window + 10_000)
        #expect(model.record(apnsID: "id-999999")?.state == .stored)
        #expect(model.record(apnsID: "id-0") == nil, "left the window, coalesced long ago")
        model.setConnectivity(.online, for: tokens[9_999])
        #expect(model.notificationCentre(for: tokens[9_999]).notifications.map(\.apnsID) == ["id-999999"])
    }
}

/// The configuration file's `delivery` section.
@Suite struct DeliveryConfigurationTests {
    @Test func theSectionSetsTheRulesAndTheDevicesPlans() throws {
        let token = String(repeating: "ab", count: 32)
        let json = try ConfigurationJSON.parse(Array("""
            {"delivery":{"enabled":true,"power_delay_seconds":5,"maximum_storage_seconds":60,
             "background_budget":{"count":2,"window_seconds":3600},"notification_centre_limit":8,
             "devices":[{"device_token":"\(token)","connectivity":"offline","offline":[{"from_seconds":10,"for_seconds":30}]}]}}
            """.utf8))
        let settings = try MockConfiguration.decode(json, baseDirectory: nil).delivery
        #expect(settings.enabled && settings.powerDelay == 5 && settings.maximumStorage == 60)
        #expect(settings.backgroundBudget == .init(count: 2, window: 3600) && settings.notificationCentreLimit == 8)
        #expect(settings.devices[DeviceToken(token)!] == DeviceConnectivityPlan(connectivity: .offline, offlineWindows: [.init(start: 10, duration: 30)]))
        #expect(!MockConfiguration.makeDefault().delivery.enabled, "off unless asked")
    }

    @Test func badValuesNameTheField() throws {
        for (text, path) in [
            (#"{"delivery":{"enabled":"yes"}}"#, "delivery.enabled"),
            (#"{"delivery":{"devices":[{"device_token":"zz"}]}}"#, "delivery.devices[0].device_token"),
            (#"{"delivery":{"devices":[{"device_token":"ab","connectivity":"away"}]}}"#, "delivery.devices[0].connectivity"),
            (#"{"delivery":{"devices":[{"device_token":"ab","offline":[{"from_seconds":1}]}]}}"#, "delivery.devices[0].offline[0]"),
            (#"{"delivery":{"power_delay":1}}"#, "delivery.power_delay"),
        ] {
            let error = #expect(throws: ConfigurationError.self) {
                try MockConfiguration.decode(try ConfigurationJSON.parse(Array(text.utf8)), baseDirectory: nil)
            }
            #expect(error?.description.contains(path) == true, "\(error?.description ?? "no error") names \(path)")
        }
    }
}
