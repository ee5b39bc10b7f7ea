import Foundation
import HermesApp
import PushTestSupport
import Testing

@Suite struct HermesSnoozeTests {
    @Test func theScheduleIsFibonacciInDaysThenSixtyForever() {
        let days = (1...14).map(HermesSnoozeSchedule.days(forSnooze:))
        #expect(days == [1, 2, 3, 5, 8, 13, 21, 34, 55, 60, 60, 60, 60, 60])
        #expect(HermesSnoozeSchedule.days(forSnooze: 1_000) == 60)
    }

    @Test func eachLaterSnoozesForTheNextStepFromNow() async throws {
        let clock = ManualClock()
        let file = HermesStateFile<HermesSnoozeStore.State>(url: temporaryFolder().appendingPathComponent("snooze.json"))
        let store = HermesSnoozeStore(file: file, now: clock.closure)
        #expect(await store.isSnoozed() == false)
        for expectedDays in [1, 2, 3, 5, 8, 13, 21, 34, 55, 60, 60] {
            let start = clock.now
            let until = try await store.snooze()
            #expect(until == start.addingTimeInterval(Double(expectedDays) * 86_400))
            clock.advance(Double(expectedDays) * 86_400 - 1)
            #expect(await store.isSnoozed(), "still snoozed one second before \(expectedDays) days")
            clock.advance(1)
            #expect(await store.isSnoozed() == false, "the \(expectedDays)-day snooze ends on time")
        }
    }

    @Test func theSnoozeSurvivesARestart() async throws {
        let clock = ManualClock()
        let url = temporaryFolder().appendingPathComponent("state/snooze.json")
        let first = HermesSnoozeStore(file: HermesStateFile(url: url), now: clock.closure)
        try await first.snooze()
        clock.advance(86_400)
        try await first.snooze()

        let reopened = HermesSnoozeStore(file: HermesStateFile(url: url), now: clock.closure)
        #expect(await reopened.current.snoozeCount == 2)
        #expect(await reopened.isSnoozed())
        clock.advance(2 * 86_400)
        #expect(await reopened.isSnoozed() == false)
        // The backoff continues where it was: the third snooze is 3 days.
        let start = clock.now
        #expect(try await reopened.snooze() == start.addingTimeInterval(3 * 86_400))
    }

    @Test func anUnreadableFileStartsOverInsteadOfCrashing() async throws {
        let url = temporaryFolder().appendingPathComponent("snooze.json")
        try Data("{not json".utf8).write(to: url)
        #expect(throws: HermesStateFileError.self) { try HermesStateFile<HermesSnoozeStore.State>(url: url).load() }
        let store = HermesSnoozeStore(file: HermesStateFile(url: url))
        #expect(await store.current == HermesSnoozeStore.State())
        try await store.snooze()
        #expect(try HermesStateFile<HermesSnoozeStore.State>(url: url).load()?.snoozeCount == 1)
    }

    @Test func resetStartsTheBackoffAgain() async throws {
        let clock = ManualClock()
        let url = temporaryFolder().appendingPathComponent("snooze.json")
        let store = HermesSnoozeStore(file: HermesStateFile(url: url), now: clock.closure)
        try await store.snooze()
        try await store.snooze()
        try await store.reset()
        #expect(await store.isSnoozed() == false)
        #expect(try HermesStateFile<HermesSnoozeStore.State>(url: url).load() == HermesSnoozeStore.State())
        let start = clock.now
        #expect(try await store.snooze() == start.addingTimeInterval(86_400))
    }
}
