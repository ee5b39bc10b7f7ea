import Testing
@testable import HTTPTransport

/// The one-timer queue behind the default request timeout: every request still times out at
/// its own deadline, and answered requests are not kept.
@Suite struct HTTP2ClientDeadlinesTests {
    static func stream(timeout: Duration = .seconds(30)) -> HTTP2ClientStream {
        let stream = HTTP2ClientStream(request: HTTPClientRequest(path: "/"), timeout: timeout)
        stream.accept(.completion { _ in })
        return stream
    }

    @Test func onlyUnfinishedRequestsPastTheirDeadlineExpireInOrder() {
        var deadlines = HTTP2ClientDeadlines()
        let first = Self.stream(timeout: .milliseconds(10))
        let answered = Self.stream(timeout: .milliseconds(10))
        let later = Self.stream(timeout: .seconds(30))
        for stream in [first, answered, later] { deadlines.append(stream) }
        answered.finish(.failure(.closed))
        #expect(deadlines.nextDeadline() == first.deadline)
        #expect(deadlines.takeExpired(now: first.deadline! - .milliseconds(1)).isEmpty, "nothing is due before the first deadline")
        let expired = deadlines.takeExpired(now: first.deadline! + .milliseconds(1))
        #expect(expired.map(ObjectIdentifier.init) == [ObjectIdentifier(first)], "the answered one is skipped")
        #expect(deadlines.nextDeadline() == later.deadline)
        #expect(deadlines.takeExpired(now: later.deadline!).map(ObjectIdentifier.init) == [ObjectIdentifier(later)])
        #expect(deadlines.nextDeadline() == nil)
    }

    @Test func answeredRequestsBehindOneThatWaitsAreNotKept() {
        var deadlines = HTTP2ClientDeadlines()
        let waiting = Self.stream()
        deadlines.append(waiting)
        for _ in 0..<100_000 {
            let stream = Self.stream()
            deadlines.append(stream)
            stream.finish(.failure(.closed))
        }
        #expect(deadlines.count < 1_000, "kept \(deadlines.count) entries for one unfinished request")
        #expect(deadlines.nextDeadline() == waiting.deadline)
        waiting.finish(.failure(.closed))
        #expect(deadlines.nextDeadline() == nil)
        #expect(deadlines.count == 0)
    }
}
