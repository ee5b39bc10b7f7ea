import APNsCore
import Foundation
@testable import MockAPNs
import PushTestSupport
import Testing

/// The delivery model's numbered changes (`DeliveryModel.changes(after:limit:)`): window
/// edges number connectivity changes at their own times, a held push's last change outlives
/// its record, and the oldest numbers go once the feed is full.
@Suite(.timeLimit(.minutes(1)))
struct DeliveryFeedTests {
    static func summary(_ change: DeliveryChange) -> String {
        switch change.what {
        case .push(let apnsID, _, _, let event): "\(change.sequence) \(apnsID) \(event.state.rawValue)"
        case .connectivity(let connectivity, _): "\(change.sequence) \(connectivity.rawValue)"
        }
    }

    /// Offline from t+10 s for 30 s, a push stored meanwhile: the window's edges are numbered
    /// at their own times, before the delivery they cause, and a wait for change ends.
    @Test func windowEdgesAreNumberedAtTheirTimes() async throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_796_378_440))
        let start = clock.now
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), now: clock.closure)
        let token = DeliveryModelTests.token(1)
        model.schedule(DeviceConnectivityPlan(offlineWindows: [.init(start: 10, duration: 30)]), for: token)
        #expect(model.changes(after: 0, limit: 10).latestSequence == 0, "a plan that leaves the device online changes nothing yet")
        clock.advance(15)
        model.accept(DeliveryModelTests.input(1, token: token))
        async let waited = model.waitForChange(after: 2, timeout: .seconds(30))
        #expect(await pollUntil { model.pendingWaitCount == 1 })
        clock.advance(30)
        model.advance()
        #expect(await waited == .satisfied)
        let found = model.changes(after: 0, limit: 10)
        #expect(found.changes.map(Self.summary) == ["4 id-1 delivered", "3 online", "2 id-1 stored", "1 offline"])
        #expect(found.changes.map(\.at) == [40, 40, 15, 10].map { start.addingTimeInterval($0) })
        #expect(found.matched == 4 && found.latestSequence == 4)
    }

    /// A push held past the log's window of recent records is forgotten once delivered; its
    /// delivery stays in the feed. With the feed full, the oldest numbers go and `matched`
    /// counts only those kept.
    @Test func aForgottenRecordsLastChangeStaysAndTheOldestGo() {
        let model = DeliveryModel(settings: DeliverySettings(enabled: true), logCapacity: 2)
        let held = DeliveryModelTests.token(1), other = DeliveryModelTests.token(2)
        model.setConnectivity(.offline, for: held)
        model.accept(DeliveryModelTests.input(1, token: held))
        for n in 2...4 { model.accept(DeliveryModelTests.input(n, token: other)) }
        model.setConnectivity(.online, for: held)
        #expect(model.record(apnsID: "id-1") == nil, "delivered outside the window: forgotten")
        #expect(model.changes(after: 5, limit: 10).changes.map(Self.summary) == ["7 id-1 delivered", "6 online"])

        for n in 5...70 { model.accept(DeliveryModelTests.input(n, token: other)) }
        let found = model.changes(after: 0, limit: 1_000)
        #expect(found.latestSequence == 73 && found.matched == 64, "the feed keeps 64 numbers when the log keeps fewer")
        #expect(found.changes.first.map(Self.summary) == "73 id-70 delivered")
        // Of the 64 kept, those of pushes the log has forgotten are not listed.
        #expect(found.changes.map(Self.summary) == ["73 id-70 delivered", "72 id-69 delivered"])
    }
}
