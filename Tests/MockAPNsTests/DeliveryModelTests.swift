import APNsCore
import Foundation
@testable import MockAPNs
import PushTestSupport
import Testing

/// The delivery model fed directly: the rules that need long times, and its memory bound.
@Suite(.timeLimit(.minutes(2)))
struct DeliveryModelTests {
    static func input(_ n: Int, token: DeviceToken, expiration: Int64? = nil, payload: [UInt8] = Array(#"{"aps":{"alert":"x"}}"#.utf8)) -> DeliveryInput {
        DeliveryInput(apnsID: "id-\(n)", uniqueID: nil, deviceToken: token, topic: "com.example.app", pushType: .alert,
                      priority: .immediately, expiration: expiration, collapseID: nil, payload: payload)
    }

    static func token(_ n: Int) -> DeviceToken { DeviceToken(String(format: "%064x", n))! }

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
