import APNsCore
@testable import APNsCapture
import Foundation
import Testing

/// `CaptureStore.amendOutcome`: an answer that changed after the push was recorded (the
/// mock's 500 for a line it could not write) replaces the ring's in every reading of it.
@Suite struct CaptureAmendTests {
    static func id(_ n: Int) -> String { String(format: "00000000-0000-4000-8000-%012d", n) }

    static let unwritten = PushOutcome(status: 500, reason: .internalServerError, apnsID: id(2), uniqueID: "unique-1", timestamp: nil,
                                       connectionAction: .none, explanation: "not written")

    @Test func theAmendedAnswerIsWhatListingsLookupsCountsAndNewWaitsSee() async throws {
        let store = CaptureStore(capacity: 10)
        for n in 1...3 { store.record(CaptureFixtures.fullRecord(apnsID: Self.id(n))) }
        let receivedAt = CaptureRecord.microseconds(since1970: CaptureFixtures.receivedAt)
        #expect(store.amendOutcome(apnsID: Self.id(2), receivedAtMicroseconds: receivedAt, to: Self.unwritten))

        #expect(store.records().map(\.outcome.status) == [200, 500, 200])
        let amended = try #require(store.record(sequence: 2))
        #expect(amended.outcome == Self.unwritten && amended.sequence == 2)
        #expect(amended.topic == "com.example.app" && amended.payload == CaptureFixtures.fullRecord().payload, "only the answer changes")
        #expect(store.count(matching: CaptureFilter(outcome: .accepted)) == 2)
        #expect(store.records(matching: CaptureFilter(reason: .internalServerError)).map(\.sequence) == [2])
        #expect(store.outcomeCounts().accepted == 2 && store.outcomeCounts().reasons.map(\.status) == [500])
        #expect(store.newest(after: 0, matching: .all, limit: 3).entries.compactMap { try? $0.record().outcome.status } == [200, 500, 200])
        let waited = await store.wait(for: CaptureFilter(outcome: .rejected), count: 1, timeout: .seconds(30))
        #expect(waited.isSatisfied && waited.records.map(\.sequence) == [2])
    }

    /// Nothing is kept for a push the ring no longer holds, or never held.
    @Test func aPushTheRingLetGoIsNotAmended() {
        let store = CaptureStore(capacity: 2)
        let receivedAt = CaptureRecord.microseconds(since1970: CaptureFixtures.receivedAt)
        for n in 1...3 { store.record(CaptureFixtures.fullRecord(apnsID: Self.id(n))) }
        #expect(!store.amendOutcome(apnsID: Self.id(1), receivedAtMicroseconds: receivedAt, to: Self.unwritten))
        #expect(!store.amendOutcome(apnsID: Self.id(2), receivedAtMicroseconds: receivedAt + 1, to: Self.unwritten))
        #expect(store.amendOutcome(apnsID: Self.id(2), receivedAtMicroseconds: receivedAt, to: Self.unwritten))
        // The amended entry goes when the ring drops it, and with a clear.
        store.record(CaptureFixtures.fullRecord(apnsID: Self.id(4)))
        #expect(store.state.withLock { $0.amended.isEmpty })
        #expect(store.records().map(\.outcome.status) == [200, 200])
        #expect(store.amendOutcome(apnsID: Self.id(4), receivedAtMicroseconds: receivedAt, to: Self.unwritten))
        store.clear()
        #expect(store.state.withLock { $0.amended.isEmpty })
    }
}
