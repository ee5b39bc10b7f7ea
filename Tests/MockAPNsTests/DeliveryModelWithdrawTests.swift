import APNsCore
import Foundation
@testable import MockAPNs
import PushTestSupport
import Testing

/// A push the model filed and the mock then answered 500 (its capture line could not be
/// written) is taken back: nothing of it stays on the device, and its record says why.
@Suite(.timeLimit(.minutes(3)))
struct DeliveryModelWithdrawTests {
    static let token = DeliveryModelTests.token(1)

    static func push(_ n: Int, type: APNsPushType = .alert, body: String = #"{"aps":{"alert":"x"}}"#) -> DeliveryInput {
        DeliveryInput(apnsID: "id-\(n)", uniqueID: nil, deviceToken: token, topic: "com.example.app", pushType: type,
                      priority: type == .background ? .consideringDevicePower : .immediately, expiration: nil, collapseID: nil,
                      payload: Array(body.utf8))
    }

    static func events(_ model: DeliveryModel, _ n: Int) -> [String] {
        model.record(apnsID: "id-\(n)")?.events.map { [$0.state.rawValue, $0.why?.rawValue].compactMap { $0 }.joined(separator: ":") } ?? []
    }

    @Test func aDeliveredPushLeavesTheScreenAndItsBadgeGoesBackToTheOneBefore() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        model.accept(Self.push(1, body: #"{"aps":{"alert":"a","badge":3}}"#))
        model.accept(Self.push(2, body: #"{"aps":{"alert":"b","badge":7}}"#))
        #expect(model.notificationCentre(for: Self.token).badges["com.example.app"] == 7)

        clock.advance(1)
        model.withdraw(apnsID: "id-2", deviceToken: Self.token)
        let centre = model.notificationCentre(for: Self.token)
        #expect(centre.notifications.map(\.apnsID) == ["id-1"])
        #expect(centre.badges["com.example.app"] == 3)
        #expect(Self.events(model, 2) == ["rejected:internal_server_error"])
        #expect(model.record(apnsID: "id-2")?.events.first?.at == clock.now)
        #expect(Self.events(model, 1) == ["delivered"], "the push before it is untouched")
    }

    /// Followers keep what they were told: the delivery numbered before the take-back still
    /// reads as a delivery, and the rejection gets a number of its own.
    @Test func theFeedKeepsTheDeliveryAndNumbersTheTakeBack() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        model.accept(Self.push(1))
        clock.advance(1)
        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        let seen = model.changes(after: 0, limit: 10).changes.map { change -> String in
            guard case let .push(apnsID, _, _, event) = change.what else { return "\(change.sequence) connectivity" }
            return "\(change.sequence) \(apnsID) \(event.state.rawValue)"
        }
        #expect(seen == ["2 id-1 rejected", "1 id-1 delivered"])
    }

    @Test func aStoredPushIsNotDeliveredWhenTheDeviceReturns() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        model.setConnectivity(.offline, for: Self.token)
        model.accept(Self.push(1))
        #expect(model.storedPushCount == 1)

        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        #expect(model.storedPushCount == 0)
        model.setConnectivity(.online, for: Self.token)
        #expect(model.notificationCentre(for: Self.token).notifications.isEmpty)
        #expect(Self.events(model, 1) == ["rejected:internal_server_error"])
    }

    @Test func aWithdrawnBackgroundPushGivesItsPlaceInTheBudgetBack() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(
            settings: DeliverySettings(enabled: true, backgroundBudget: DeliverySettings.BackgroundBudget(count: 1, window: 3600)), now: clock.closure)
        let background = #"{"aps":{"content-available":1}}"#
        model.accept(Self.push(1, type: .background, body: background))
        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        model.accept(Self.push(2, type: .background, body: background))
        #expect(Self.events(model, 2) == ["delivered"], "the budget of one was not spent by the withdrawn push")
    }

    /// A reused `apns-id` takes back the newest push only, and a second failure with it the
    /// one before; a push the model never filed (another device) is left alone.
    @Test func aReusedApnsIDTakesBackTheNewestPushNotYetWithdrawn() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        model.accept(Self.push(1))
        model.accept(Self.push(1))
        model.withdraw(apnsID: "id-1", deviceToken: DeliveryModelTests.token(2))
        #expect(model.records(deviceToken: Self.token).map(\.state) == [.delivered, .delivered])

        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        #expect(model.records(deviceToken: Self.token).map(\.state) == [.delivered, .rejected])
        #expect(model.notificationCentre(for: Self.token).notifications.count == 1)
        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        #expect(model.records(deviceToken: Self.token).map(\.state) == [.rejected, .rejected])
        #expect(model.notificationCentre(for: Self.token).notifications.isEmpty)
    }

    /// A push held for an offline device stays in the log after it leaves the window of
    /// recent records, and is found there.
    @Test func aHeldPushOutsideTheWindowIsFound() {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), logCapacity: 2, now: clock.closure)
        model.setConnectivity(.offline, for: Self.token)
        model.accept(Self.push(1))
        for n in 2...4 {
            model.accept(DeliveryInput(apnsID: "id-\(n)", uniqueID: nil, deviceToken: DeliveryModelTests.token(n), topic: "com.example.app",
                                       pushType: .alert, priority: .immediately, expiration: nil, collapseID: nil, payload: []))
        }
        model.withdraw(apnsID: "id-1", deviceToken: Self.token)
        #expect(model.storedPushCount == 0)
    }
}
