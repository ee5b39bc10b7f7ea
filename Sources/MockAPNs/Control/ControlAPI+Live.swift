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
    static let liveParameters = LiveWindow.parameters + ControlQueryKey.filters

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

    /// A long-poll's `after`, `limit` and `timeout`, as `/pushes/live` and `/delivery/live` read them.
    struct LiveWindow {
        static let parameters = [LiveKey.after, ControlQueryKey.limit, ControlQueryKey.timeout]

        /// The last number the follower has seen (default 0).
        var after: UInt64 = 0
        /// The most one answer holds (``ControlAPI/liveLimits``, default 50).
        var limit: Int
        /// How long to wait when there is nothing newer (default 25, at most ``ControlAPI/maximumWait``).
        var timeout: Duration

        init(_ query: QueryParameters) throws {
            if let text = query[LiveKey.after] {
                guard let value = UInt64(text) else {
                    throw QueryError(description: "\(LiveKey.after): expected a sequence number (0 or more), found \"\(text)\"")
                }
                after = value
            }
            limit = try ControlAPI.integer(query, ControlQueryKey.limit, in: ControlAPI.liveLimits) ?? 50
            let seconds = try ControlAPI.number(query, ControlQueryKey.timeout, in: 0...Double(ControlAPI.maximumWait.components.seconds)) ?? 25
            timeout = .milliseconds(Int64(seconds * 1000))
        }
    }

    func respondLive(_ query: QueryParameters, _ request: HTTPRequest, _ responder: HTTPResponder) throws {
        let filter = try Self.filter(from: query)
        let window = try LiveWindow(query)
        let after = window.after, limit = window.limit, timeout = window.timeout
        let capture = capture, waits = waits
        var found = capture.newest(after: after, matching: filter, limit: limit)
        // Numbers from a run before a restart: answered at once, from the first push, so
        // that the follower learns of it from `latest_seq` and starts again.
        let restarted = after > found.latestSequence
        if restarted { found = capture.newest(after: 0, matching: filter, limit: limit) }
        guard found.entries.isEmpty, timeout > .zero, !restarted else {
            responder.respond(Self.live(found))
            return
        }
        waits.start(connection: request.connection.id) {
            var next = filter
            next.afterSequence = after
            let result = await capture.waitForEntries(for: next, count: 1, timeout: timeout)
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
