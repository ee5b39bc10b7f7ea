import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// `GET /pushes/live`, the dashboard's stream: the newest pushes after a sequence number,
/// newest first, with counts; or a wait for the next one.
@Suite(.timeLimit(.minutes(3)))
struct ControlLiveStreamTests {
    /// What one answer says.
    struct Live: Equatable {
        var status: Int
        var sequences: [Int64]
        var matched: Int64?
        var latest: Int64?
    }

    static func live(_ control: HTTP2Client, _ query: String) async throws -> Live {
        let answer = try await control.send(HTTPClientRequest(path: "/pushes/live?\(query)"))
        guard case let .object(body)? = try? JSONParser.parse(answer.body, maximumDepth: 32) else {
            return Live(status: answer.status, sequences: [])
        }
        var sequences: [Int64] = []
        if case let .array(pushes)? = body["pushes"] {
            for case let .object(push) in pushes { if case let .integer(seq)? = push["seq"] { sequences.append(seq) } }
        }
        func integer(_ key: String) -> Int64? { if case let .integer(value)? = body[key] { value } else { nil } }
        return Live(status: answer.status, sequences: sequences, matched: integer("matched"), latest: integer("latest_seq"))
    }

    static func send(_ mock: MockAPNsServer, count: Int, topic: String = "com.example.app") async throws {
        let apns = try Acceptance.client(for: mock.productionURL, trust: nil)
        let token = try Acceptance.providerToken()
        for _ in 0..<count { _ = try await apns.send(Acceptance.push(token: token, topic: topic)) }
        await apns.close()
    }

    static func start() throws -> (MockAPNsServer, HTTP2Client) {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.tlsEnabled = false }
        return (mock, try Acceptance.client(for: mock.controlURL, trust: nil))
    }

    /// Behind by five, asking for two: the newest two, newest first, and the count of five.
    @Test func answersAtOnceWithTheNewestFirstAndHowManyMatched() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, count: 5)
        #expect(try await Self.live(control, "after=0&limit=2&timeout=30") == Live(status: 200, sequences: [5, 4], matched: 5, latest: 5))
        #expect(try await Self.live(control, "after=3&timeout=30") == Live(status: 200, sequences: [5, 4], matched: 2, latest: 5))
        await control.close()
    }

    /// With nothing newer it waits, and the next push answers it.
    @Test func waitsForTheNextPush() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, count: 1)
        async let waited = Self.live(control, "after=1&timeout=30")
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        try await Self.send(mock, count: 1)
        #expect(try await waited == Live(status: 200, sequences: [2], matched: 1, latest: 2))
        #expect(try await Self.live(control, "after=2&timeout=0.2") == Live(status: 200, sequences: [], matched: 0, latest: 2))
        await control.close()
    }

    /// Filters hold for the answer and for the wait: a push that does not match leaves it waiting.
    @Test func filtersNarrowTheStream() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, count: 2)
        try await Self.send(mock, count: 1, topic: "com.example.other")
        #expect(try await Self.live(control, "after=0&outcome=rejected") == Live(status: 200, sequences: [3], matched: 1, latest: 3))
        async let waited = Self.live(control, "after=3&outcome=rejected&timeout=30")
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        try await Self.send(mock, count: 1)
        try await Task.sleep(for: .milliseconds(100))
        #expect(mock.capture.pendingWaitCount == 1, "an accepted push ended a wait for rejections")
        try await Self.send(mock, count: 1, topic: "com.example.other")
        #expect(try await waited == Live(status: 200, sequences: [5], matched: 1, latest: 5))
        await control.close()
    }

    /// A follower that holds numbers from before a restart hears at once, from the first push.
    @Test func numbersFromBeforeARestartAnswerAtOnce() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        try await Self.send(mock, count: 2)
        #expect(try await Self.live(control, "after=900&limit=5&timeout=600") == Live(status: 200, sequences: [2, 1], matched: 2, latest: 2))
        await control.close()
    }

    @Test func refusesParametersItDoesNotRead() async throws {
        let (mock, control) = try Self.start()
        defer { mock.stop() }
        for (query, message) in [("after=-1", "after: expected a sequence number"), ("limit=0", "limit: expected an integer from 1 to 1000"),
                                 ("timeout=601", "timeout: expected seconds"), ("count=1", #"unknown query parameter \"count\"; expected one of after, limit, timeout"#),
                                 ("push_type=banner", "push_type: expected one of")] {
            let answer = try await control.send(HTTPClientRequest(path: "/pushes/live?\(query)"))
            #expect(answer.status == 400 && String(decoding: answer.body, as: UTF8.self).contains(message),
                    "\(query): \(String(decoding: answer.body, as: UTF8.self))")
        }
        let post = try await control.send(HTTPClientRequest(method: "POST", path: "/pushes/live"))
        #expect(post.status == 405 && post.headers["allow"] == "GET")
        await control.close()
    }

    /// A page closed mid-wait ends its wait at once; one pending at stop is answered 503.
    @Test func aWaitEndsWithItsClientAndAnswers503AtStop() async throws {
        let (mock, control) = try Self.start()
        let waiting = Task { try await control.send(HTTPClientRequest(path: "/pushes/live?timeout=600")) }
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        await control.close()
        #expect(await pollUntil { mock.capture.pendingWaitCount == 0 }, "the wait outlived its client")
        _ = await waiting.result

        let second = try Acceptance.client(for: mock.controlURL, trust: nil)
        let pending = Task { try await second.send(HTTPClientRequest(path: "/pushes/live?timeout=600")) }
        #expect(await pollUntil { mock.capture.pendingWaitCount == 1 })
        try await onThread { mock.stop() }
        let answer = try await pending.value
        #expect(answer.status == 503)
        #expect(String(decoding: answer.body, as: UTF8.self).hasPrefix(#"{"count":0,"error":"the mock is stopping","latest_seq":0,"matched":0,"pushes":[]}"#))
        await second.close()
    }
}
