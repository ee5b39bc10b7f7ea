import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// `GET /delivery/live`, the dashboard's stream of the delivery model: the newest changes
/// after a number, newest first, with counts; or a wait for the next one. Shaped like
/// `/pushes/live` (ControlLiveStreamTests).
@Suite(.timeLimit(.minutes(3)))
struct DeliveryLiveStreamTests {
    static let token = DeviceToken(Acceptance.deviceToken)!

    /// What one answer says: each change as `seq kind what`.
    struct Live: Equatable {
        var status: Int
        var changes: [String]
        var matched: Int64?
        var latest: Int64?
        var error: String?
    }

    static func live(_ control: HTTP2Client, _ query: String) async throws -> Live {
        let answer = try await control.send(HTTPClientRequest(path: "/delivery/live?\(query)"))
        guard case let .object(body)? = try? JSONParser.parse(answer.body, maximumDepth: 32) else {
            return Live(status: answer.status, changes: [], error: String(decoding: answer.body, as: UTF8.self))
        }
        func text(_ object: [String: JSONValue], _ key: String) -> String? { if case let .string(value)? = object[key] { value } else { nil } }
        var changes: [String] = []
        if case let .array(list)? = body["changes"] {
            for case let .object(change) in list {
                guard case let .integer(seq)? = change["seq"], text(change, "at") != nil, text(change, "device_token") == Acceptance.deviceToken else {
                    changes.append("malformed \(change)")
                    continue
                }
                let what = text(change, "kind") == "push"
                    ? [text(change, "apns_id"), text(change, "state"), text(change, "why"), text(change, "by").map { "by \($0)" }].compactMap { $0 }
                    : [text(change, "kind"), text(change, "connectivity")].compactMap { $0 }
                changes.append(([String(seq)] + what).joined(separator: " "))
            }
        }
        func integer(_ key: String) -> Int64? { if case let .integer(value)? = body[key] { value } else { nil } }
        return Live(status: answer.status, changes: changes, matched: integer("matched"), latest: integer("latest_seq"), error: text(body, "error"))
    }

    static func send(_ mock: MockAPNsServer, _ ids: [String]) async throws {
        let apns = try Acceptance.client(for: mock.productionURL, trust: nil)
        let token = try Acceptance.providerToken()
        for id in ids {
            let answer = try await apns.send(Acceptance.push(token: token, extra: [("apns-id", id)]))
            #expect(answer.status == 200)
        }
        await apns.close()
    }

    static func start(delivery: Bool = true) throws -> (MockAPNsServer, HTTP2Client) {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.delivery.enabled = delivery
        }
        return (mock, try Acceptance.client(for: mock.controlURL, trust: nil))
    }

    static let first = "00000000-0000-4000-8000-000000000001", second = "00000000-0000-4000-8000-000000000002"

    /// Offline, two pushes (the second coalesces the first), online: six numbered changes,
    /// connectivity among them. Asked for three, the newest three, newest first, of six.
    static func sixChanges(_ mock: MockAPNsServer) async throws {
        mock.delivery.setConnectivity(.offline, for: token)
        try await send(mock, [first, second])
        mock.delivery.setConnectivity(.online, for: token)
    }

    @Test func answersAtOnceWithTheNewestChangesFirst() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.sixChanges(mock)
        let all = try await Self.live(control, "after=0&timeout=30")
        #expect(all.changes == [
            "6 \(Self.second) delivered", "5 connectivity online", "4 \(Self.second) stored offline",
            "3 \(Self.first) discarded coalesced by \(Self.second)", "2 \(Self.first) stored offline", "1 connectivity offline",
        ])
        #expect(all.matched == 6 && all.latest == 6)
        #expect(try await Self.live(control, "after=2&limit=2") == Live(
            status: 200, changes: Array(all.changes[0..<2]), matched: 4, latest: 6))
        let record = try #require(mock.delivery.record(apnsID: Self.first))
        #expect(mock.delivery.changes(after: 2, limit: 10).changes.last?.what
            == .push(apnsID: Self.first, uniqueID: record.uniqueID, topic: Acceptance.topic, event: record.events[1]))
        await control.close()
    }

    /// With nothing newer it waits; a change with no push (a device going offline) answers it.
    @Test func waitsThenAnswersOnAChange() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, [Self.first])
        async let waited = Self.live(control, "after=1&timeout=30")
        #expect(await pollUntil { mock.delivery.pendingWaitCount == 1 })
        mock.delivery.setConnectivity(.offline, for: Self.token)
        #expect(try await waited == Live(status: 200, changes: ["2 connectivity offline"], matched: 1, latest: 2))
        #expect(mock.delivery.pendingWaitCount == 0)
        await control.close()
    }

    /// Nothing changes: the wait ends at its timeout with no changes.
    @Test func timesOutWithNoChanges() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, [Self.first])
        #expect(try await Self.live(control, "after=1&timeout=0.2") == Live(status: 200, changes: [], matched: 0, latest: 1))
        #expect(try await Self.live(control, "timeout=0") == Live(status: 200, changes: ["1 \(Self.first) delivered"], matched: 1, latest: 1))
        #expect(mock.delivery.pendingWaitCount == 0)
        await control.close()
    }

    /// A follower that holds numbers from before a restart hears at once, from the first change.
    @Test func numbersFromBeforeARestartAnswerAtOnce() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, [Self.first])
        #expect(try await Self.live(control, "after=900&timeout=600") == Live(status: 200, changes: ["1 \(Self.first) delivered"], matched: 1, latest: 1))
        await control.close()
    }

    @Test func isAConflictWithTheModelOff() async throws {
        let (mock, control) = try Self.start(delivery: false)
        defer { mock.stop() }
        let answer = try await Self.live(control, "after=0&timeout=30")
        #expect(answer.status == 409 && answer.error?.contains("--delivery") == true, "\(answer)")
        await control.close()
    }

    @Test func refusesParametersItDoesNotRead() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        for (query, message) in [("after=-1", "after: expected a sequence number"), ("limit=0", "limit: expected an integer from 1 to 1000"),
                                 ("limit=1001", "limit: expected an integer from 1 to 1000"), ("timeout=601", "timeout: expected seconds"),
                                 ("after=1&after=2", #"\"after\" is given more than once"#),
                                 ("device_token=abab", #"unknown query parameter \"device_token\"; expected one of after, limit, timeout"#)] {
            let answer = try await control.send(HTTPClientRequest(path: "/delivery/live?\(query)"))
            #expect(answer.status == 400 && String(decoding: answer.body, as: UTF8.self).contains(message),
                    "\(query): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let post = try await control.send(HTTPClientRequest(method: "POST", path: "/delivery/live", headers: ["content-type": "application/json"]))
        #expect(post.status == 405 && post.headers["allow"] == "GET", "\(post.status): \(String(decoding: post.body, as: UTF8.self))")
        await control.close()
    }

    /// A page closed mid-wait ends its wait at once; one pending at stop is answered 503.
    @Test func aWaitEndsWithItsClientAndAnswers503AtStop() async throws {
        let (mock, control) = try Self.start()
        let waiting = Task { try await control.send(HTTPClientRequest(path: "/delivery/live?timeout=600")) }
        #expect(await pollUntil { mock.delivery.pendingWaitCount == 1 })
        await control.close()
        #expect(await pollUntil { mock.delivery.pendingWaitCount == 0 }, "the wait outlived its client")
        _ = await waiting.result

        let second = try Acceptance.client(for: mock.controlURL, trust: nil)
        let pending = Task { try await Self.live(second, "timeout=600") }
        #expect(await pollUntil { mock.delivery.pendingWaitCount == 1 })
        try await onThread { mock.stop() }
        #expect(try await pending.value == Live(status: 503, changes: [], matched: 0, latest: 0, error: "the mock is stopping"))
        await second.close()
    }
}
