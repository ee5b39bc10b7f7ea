import APNsCapture
import HTTPTransport
import StrictJSON
import Synchronization

/// A typed client for apns-mock's control API (docs/control-api.md), over h2c.
///
/// It keeps one connection, and opens a new one for the next call once that is lost or the
/// mock sent GOAWAY, so a caller may simply try a call again.
///
/// ```swift
/// let control = try MockControlClient(baseURL: mock.controlURL)
/// defer { Task { await control.close() } }
/// let result = try await control.waitForPushes(matching: CaptureFilter(topic: "com.example.app"), count: 2, timeout: .seconds(10))
/// ```
public final class MockControlClient: Sendable {
    private let base: ControlBaseURL
    private let configuration: HTTP2ClientConfiguration
    /// The connection in use; nil once closed.
    private let connection: Mutex<HTTP2Client?>
    /// How much longer than a wait's own timeout its request may take before it is given up.
    static let waitSlack = Duration.seconds(10)
    /// How deep the control API's JSON may nest.
    static let maximumDepth = 32

    /// Creates a client for the control API at `baseURL` (`http://host:port[/prefix]`); it
    /// connects on the first call.
    ///
    /// - Throws: ``MockControlError`` of kind `invalidBaseURL` for any other URL.
    public convenience init(baseURL: String) throws(MockControlError) {
        try self.init(baseURL: try ControlBaseURL(baseURL))
    }

    /// Creates a client for the control API at `baseURL`; it connects on the first call.
    ///
    /// - Throws: ``MockControlError`` of kind `cannotConnect` when no connection can be set up.
    public init(baseURL: ControlBaseURL) throws(MockControlError) {
        base = baseURL
        var configuration = HTTP2ClientConfiguration(host: base.host, port: base.port)
        configuration.requestTimeout = .seconds(30)
        self.configuration = configuration
        do {
            connection = Mutex(try HTTP2Client(configuration: configuration))
        } catch {
            throw MockControlError(.cannotConnect, request: base.description, url: base.description, "\(error)")
        }
    }

    /// Closes the connection; later calls fail with `cannotConnect`.
    public func close() async {
        let client = connection.withLock { current in
            defer { current = nil }
            return current
        }
        await client?.close()
    }

    /// The connection to send on: a new one when the last was lost or is going away.
    private func usableConnection(for request: String, url: String) async throws(MockControlError) -> HTTP2Client {
        let current = try connection.withLock { (current) throws(MockControlError) in
            guard let current else { throw MockControlError(.cannotConnect, request: request, url: url, "the client was closed") }
            return current
        }
        guard current.state == .goingAway || current.state == .closed else { return current }
        let fresh: HTTP2Client
        do {
            fresh = try HTTP2Client(configuration: configuration)
        } catch {
            throw MockControlError(.cannotConnect, request: request, url: url, "\(error)")
        }
        // Another call may have replaced it meanwhile, or closed the client: that one wins.
        let (chosen, unused) = connection.withLock { slot -> (HTTP2Client?, HTTP2Client?) in
            guard let existing = slot else { return (nil, fresh) }
            guard existing === current else { return (existing, fresh) }
            slot = fresh
            return (fresh, current)
        }
        await unused?.close()
        guard let chosen else { throw MockControlError(.cannotConnect, request: request, url: url, "the client was closed") }
        return chosen
    }

    /// The captured pushes matching `filter`, oldest first; `limit` keeps the newest ones.
    ///
    /// - Throws: ``MockControlError``; `malformedAnswer` also when a record does not decode,
    ///   a record of a newer format version included (``pushListing(matching:limit:timeout:cancellable:)``
    ///   tells them apart).
    public func pushes(matching filter: CaptureFilter = CaptureFilter(), limit: Int? = nil) async throws(MockControlError) -> [CaptureRecord] {
        try records(of: try await pushListing(matching: filter, limit: limit))
    }

    /// The captured pushes matching `filter`, oldest first, each decoded or with why it did
    /// not decode; `limit` keeps the newest ones.
    ///
    /// - Parameters:
    ///   - timeout: how long the request may take; nil for the client's 30 s.
    ///   - cancellable: false sends the request even when the calling task is cancelled, and
    ///     bounds it by `timeout` alone: for a last read after the caller was cancelled, such
    ///     as the pushes that arrived before Ctrl-C ended a wait.
    /// - Throws: ``MockControlError``; `malformedAnswer` when the body is not `{"pushes":[…]}`.
    public func pushListing(
        matching filter: CaptureFilter = CaptureFilter(), limit: Int? = nil, timeout: Duration? = nil, cancellable: Bool = true
    ) async throws(MockControlError) -> PushListing {
        var parameters = PushQuery.parameters(for: filter)
        if let limit { parameters.append("limit=\(limit)") }
        let answer = try await send("GET", PushQuery.path("/pushes", parameters), expecting: [200], timeout: timeout,
                                    cancellable: cancellable)
        return try listing(of: answer)
    }

    /// Waits until `count` pushes matching `filter` were captured since the last clear, or
    /// `timeout` passes (the control API allows at most 600 s); returns what there is either way.
    ///
    /// - Throws: ``MockControlError``; `malformedAnswer` also when a record does not decode.
    public func waitForPushes(
        matching filter: CaptureFilter = CaptureFilter(), count: Int = 1, timeout: Duration
    ) async throws(MockControlError) -> PushWaitResult {
        let listing = try await waitListing(matching: filter, count: count, timeout: timeout)
        return PushWaitResult(records: try records(of: listing), satisfied: listing.satisfied)
    }

    /// Waits as ``waitForPushes(matching:count:timeout:)`` does, and returns each record
    /// decoded or with why it did not decode; ``PushListing/satisfied`` is false when the
    /// wait timed out.
    ///
    /// - Throws: ``MockControlError``; `malformedAnswer` when the body is not `{"pushes":[…]}`.
    public func waitListing(
        matching filter: CaptureFilter = CaptureFilter(), count: Int = 1, timeout: Duration
    ) async throws(MockControlError) -> PushListing {
        var parameters = ["count=\(count)", "timeout=\(Self.seconds(timeout))"]
        parameters += PushQuery.parameters(for: filter)
        let answer = try await send("GET", PushQuery.path("/pushes/wait", parameters), expecting: [200, 408],
                                    timeout: timeout + Self.waitSlack)
        return try listing(of: answer)
    }

    /// Clears the in-memory capture (the capture file is not touched).
    public func clearPushes() async throws(MockControlError) {
        _ = try await send("DELETE", "/pushes", expecting: [204])
    }

    /// The device tokens the mock knows, each in the configuration file's `devices` form.
    public func devices() async throws(MockControlError) -> [JSONValue] {
        try array(of: try await send("GET", "/devices", expecting: [200]))
    }

    /// Replaces the devices the mock knows; `acceptUnknownDevices` also sets whether tokens
    /// it does not list are accepted (nil leaves that as it is). Returns the new list.
    @discardableResult
    public func replaceDevices(_ devices: [JSONValue], acceptUnknownDevices: Bool? = nil) async throws(MockControlError) -> [JSONValue] {
        var body: [UInt8] = []
        JSONWriter.write(.array(devices), into: &body)
        let path = PushQuery.path("/devices", acceptUnknownDevices.map { ["accept_unknown_devices=\($0)"] } ?? [])
        return try array(of: try await send("PUT", path, body: body, expecting: [200]))
    }

    /// The fault rules with how often each fired.
    public func faults() async throws(MockControlError) -> [MockFault] {
        let answer = try await send("GET", "/faults", expecting: [200])
        var faults: [MockFault] = []
        for (index, rule) in try array(of: answer).enumerated() {
            guard case .object(let members) = rule, let id = members["id"]?.stringValue,
                  case .integer(let fired)? = members["fired"] else {
                throw malformed(answer, "rule \(index + 1) has no string id and integer fired")
            }
            var remaining: Int?
            if case .integer(let left)? = members["remaining"] { remaining = Int(clamping: left) }
            faults.append(MockFault(id: id, fired: Int(clamping: fired), remaining: remaining, rule: rule))
        }
        return faults
    }

    /// Adds one fault rule, in the configuration file's `faults` form.
    public func addFault(_ rule: JSONValue) async throws(MockControlError) {
        var body: [UInt8] = []
        JSONWriter.write(rule, into: &body)
        _ = try await send("POST", "/faults", body: body, expecting: [201])
    }

    /// Removes the fault rule `id`.
    ///
    /// - Throws: ``MockControlError`` of kind `answered(status: 404, …)` when there is none.
    public func removeFault(id: String) async throws(MockControlError) {
        _ = try await send("DELETE", "/faults/" + PushQuery.encoded(id), expecting: [204])
    }

    // MARK: - Requests

    /// An answer and the request it answered, for error messages.
    struct Answer {
        let request: String
        let url: String
        let response: HTTPClientResponse
    }

    func send(
        _ method: String, _ path: String, body: [UInt8] = [], expecting statuses: Set<Int>, timeout: Duration? = nil,
        cancellable: Bool = true
    ) async throws(MockControlError) -> Answer {
        let request = "\(method) \(base.basePath)\(path)", url = base.url(of: path)
        var headers: HTTPHeaders = [:]
        // Every change declares JSON, body or not: the control API refuses one that does not
        // (415), which is what keeps a browser tab on another site from sending it.
        if !body.isEmpty || method != "GET" { headers.add(name: "content-type", value: "application/json") }
        let http = try await usableConnection(for: request, url: url)
        let message = HTTPClientRequest(method: method, path: base.basePath + path, headers: headers, body: body, timeout: timeout)
        let response: HTTPClientResponse
        do {
            if cancellable {
                response = try await http.send(message)
            } else {
                // The callback form: the async one fails at once in a cancelled task.
                response = try await withCheckedContinuation { continuation in
                    http.send(message) { continuation.resume(returning: $0) }
                }.get()
            }
        } catch {
            throw MockControlError(.cannotConnect, request: request, url: url, "\(error)")
        }
        guard statuses.contains(response.status) else {
            var message: String?
            if case .object(let members)? = try? JSONParser.parse(response.body, maximumDepth: Self.maximumDepth) {
                message = members["error"]?.stringValue
            }
            throw MockControlError(.answered(status: response.status, error: message), request: request, url: url,
                                   body: response.body, message == nil ? MockControlError.quoted(body: response.body) : "")
        }
        return Answer(request: request, url: url, response: response)
    }

    private func listing(of answer: Answer) throws(MockControlError) -> PushListing {
        do {
            return PushListing(
                results: try CaptureRecord.decodeRecords(inArrayMember: "pushes", of: answer.response.body),
                satisfied: answer.response.status == 200, url: answer.url, request: answer.request)
        } catch {
            throw malformed(answer, "not {\"pushes\":[…]}: \(error)")
        }
    }

    private func records(of listing: PushListing) throws(MockControlError) -> [CaptureRecord] {
        var records: [CaptureRecord] = []
        for (index, result) in listing.results.enumerated() {
            switch result {
            case .success(let record): records.append(record)
            case .failure(let failure):
                throw MockControlError(.malformedAnswer, request: listing.request, url: listing.url, "record \(index + 1): \(failure)")
            }
        }
        return records
    }

    private func array(of answer: Answer) throws(MockControlError) -> [JSONValue] {
        guard case .array(let elements)? = try? JSONParser.parse(answer.response.body, maximumDepth: Self.maximumDepth) else {
            throw malformed(answer, "not a JSON array: \(MockControlError.quoted(body: answer.response.body))")
        }
        return elements
    }

    func malformed(_ answer: Answer, _ detail: String) -> MockControlError {
        MockControlError(.malformedAnswer, request: answer.request, url: answer.url, body: answer.response.body, detail)
    }

    /// Seconds as the control API reads them, with up to millisecond precision.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        let whole = milliseconds / 1000, fraction = milliseconds % 1000
        guard fraction != 0 else { return "\(whole)" }
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
