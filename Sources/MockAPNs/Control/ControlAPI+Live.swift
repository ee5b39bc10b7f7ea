import APNsCapture
import HTTPTransport
import StrictJSON

/// `GET /pushes/live`: the dashboard's live stream, a long-poll over the capture
/// (docs/control-api.md). It answers at once with the newest matching pushes numbered after
/// `after`, newest first and at most `limit`, with how many matched and the latest sequence
/// number; with none, it waits up to `timeout` seconds for one. A follower that fell behind
/// gets the latest `limit` and a count, never the backlog, so a busy mock sends it little.
extension ControlAPI {
    /// The query parameters `/pushes/live` reads.
    static let liveParameters = [LiveKey.after, ControlQueryKey.limit, ControlQueryKey.timeout] + ControlQueryKey.filters

    /// Names in the query and the answer.
    enum LiveKey {
        /// Query: the last sequence number the follower has seen.
        static let after = "after"
        /// Answer: how many pushes numbered after `after` match, in the ring.
        static let matched = "matched"
        /// Answer: the last sequence number the capture gave.
        static let latestSequence = "latest_seq"
    }

    /// The most pushes one answer holds.
    static let liveLimits = 1...1_000

    func respondLive(_ query: QueryParameters, _ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let filter = try Self.filter(from: query)
        var after: UInt64 = 0
        if let text = query[LiveKey.after] {
            guard let value = UInt64(text) else {
                throw QueryError(description: "\(LiveKey.after): expected a sequence number (0 or more), found \"\(text)\"")
            }
            after = value
        }
        let limit = try Self.integer(query, ControlQueryKey.limit, in: Self.liveLimits) ?? 50
        let seconds = try Self.number(query, ControlQueryKey.timeout, in: 0...Double(Self.maximumWait.components.seconds)) ?? 25
        let capture = capture, waits = waits
        var found = capture.newest(after: after, matching: filter, limit: limit)
        // Numbers from a run before a restart: answered at once, from the first push, so
        // that the follower learns of it from `latest_seq` and starts again.
        let restarted = after > found.latestSequence
        if restarted { found = capture.newest(after: 0, matching: filter, limit: limit) }
        guard found.entries.isEmpty, seconds > 0, !restarted else {
            responder.respond(Self.live(found))
            return
        }
        waits.start(connection: request.connection.id) { [after] in
            var next = filter
            next.afterSequence = after
            let result = await capture.waitForEntries(for: next, count: 1, timeout: .milliseconds(Int64(seconds * 1000)))
            if result.ending == .cancelled {
                guard waits.isStopping else { return }
                responder.respond(Self.live(capture.newest(after: after, matching: filter, limit: limit), status: 503))
                return
            }
            // Read again rather than answering with the one push that ended the wait: more
            // may have come since, and the newest come first.
            responder.respond(Self.live(capture.newest(after: after, matching: filter, limit: limit)))
        }
    }

    /// `{"count":N,"latest_seq":L,"matched":M,"pushes":[newest first]}`.
    static func live(_ found: CaptureNewest, status: Int = 200) -> HTTPResponse {
        var extra: [String: JSONValue] = [
            LiveKey.matched: .integer(Int64(found.matched)),
            LiveKey.latestSequence: .integer(Int64(clamping: found.latestSequence)),
        ]
        if status == 503 { extra[ControlBodyKey.error] = .string("the mock is stopping") }
        return pushes(found.entries, status: status, extra: extra)
    }
}
