import Foundation
import Testing

/// The page follows the delivery model through `GET /delivery/live` (scenario
/// `delivery_stream` of `Browser/dashboard_browser.py`): a change made through the control
/// API, with no push and nothing clicked, reaches the badge and the connectivity panel; idle,
/// the page holds one long-poll and reads no records. Requests are counted from the page's
/// own fetch calls, between two moments the page is idle; no time is measured.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct DashboardDeliveryStreamTests {
    struct Round: Decodable {
        var status: Int
        var idle_in_flight: [String]
        var streamed: [String]
        var records_read: Int
        var devices_read: Int
        var row: String?
    }

    struct Stream: Decodable {
        var first: Round
        var restarted: Round
        var reloaded: Bool
    }

    /// Before and after a restart of the mock: the push stored, then delivered when its
    /// device comes online, as the stream carried it; one records read and one devices read
    /// for that change, none while idle.
    @Test func aStateChangeArrivesThroughTheLongPollAndIdleCostsOneRequest() async throws {
        let seen = try await DashboardBrowserTests.run("delivery_stream", as: Stream.self)
        for round in [seen.first, seen.restarted] {
            #expect(round.status == 200)
            #expect(round.idle_in_flight == ["live"], "idle, the page holds only its long-poll: \(round.idle_in_flight)")
            #expect(round.streamed == ["delivered", "stored"], "\(round.streamed)")
            #expect(round.records_read == 1 && round.devices_read == 1, "one read of each for one change: \(round)")
            #expect(round.row == "online")
        }
        #expect(!seen.reloaded)
    }
}
