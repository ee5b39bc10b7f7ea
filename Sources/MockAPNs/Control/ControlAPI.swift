import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
import StrictJSON

/// The mock's control API: captured pushes (list, wait, clear), the registry's devices and
/// keys, fault rules, health and Prometheus metrics. HTTP/1.1 and h2c on one port.
///
/// Routes (`docs/control-api.md` has bodies and examples):
///
/// | method | path | does |
/// |---|---|---|
/// | GET | /healthz | `{"status":"ok"}` |
/// | GET | /metrics | Prometheus text |
/// | GET | /pushes | captured pushes matching the filter query |
/// | GET | / and /dashboard/… | the dashboard page (``DashboardPage``) |
/// | GET | /pushes/live | the newest pushes after a sequence number, or a wait for one |
/// | GET | /pushes/wait | waits until `count` pushes match, or `timeout` seconds pass (408) |
/// | DELETE | /pushes | clears the capture |
/// | GET, PUT | /devices | the registry's devices |
/// | GET, PUT | /keys | the registry's provider keys (no key material) |
/// | GET, PUT, POST, DELETE | /faults | fault rules |
/// | DELETE | /faults/{id} | removes one rule |
/// | GET, POST, DELETE | /channels… | broadcast channels (``ControlChannels``) |
/// | GET, PUT | /delivery… | the delivery log, its waits, devices' connectivity and notification centres (``DeliveryRoutes``) |
/// | GET | /profiles, /pushes/reasons, /pushes/{seq}/findings, /pushes/{seq}/simulator | inspection (`ControlAPI+Inspection`) |
///
/// Every request first passes ``refusal(of:path:)``: its host, the access token, and a JSON
/// content type for a change. The dashboard's files pass only the host check: they hold no
/// data, and the page must load to ask for the token.
///
/// Another method on one of these paths is a 405 with an `allow` header; another path, a 404.
struct ControlAPI: HTTPServerHandler {
    let capture: CaptureStore
    let faults: FaultEngine
    let metrics: PushMetrics
    let services: MockServices
    let delivery: DeliveryModel
    /// The APNs listeners' transport counters, summed.
    let transportMetrics: @Sendable () -> TransportMetrics
    /// The bearer token requests must carry (``MockServerSettings/controlAccessToken``).
    let accessToken: [UInt8]?
    /// The hosts requests may name (``MockServerSettings/controlAllowedHosts``).
    let hostCheck: ControlHostCheck
    /// The rule profiles findings are judged by.
    let profiles: InspectionProfiles
    let waits = ControlWaits()

    /// The longest `/pushes/wait` may hold a request.
    static let maximumWait = Duration.seconds(600)

    func connectionClosed(_ connection: HTTPConnection) {
        waits.cancelAll(connection: connection.id)
    }

    /// What the transport refuses itself (a body over 4 MiB, a header list over its limit,
    /// malformed HTTP/1.1, a request not read in time) is answered as every other error here,
    /// `{"error":…}` with the transport's status, so a client parses one shape.
    func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
        Self.error(rejection.status, rejection.message)
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let (path, query) = QueryParameters.split(request.path)
        // The dashboard's files hold no data: the page loads, then asks for the token.
        if hostCheck.allows(authority: request.authority), let page = DashboardPage.response(method: request.method, path: path) {
            return responder.respond(page)
        }
        if let refusal = refusal(of: request, path: path) {
            responder.respond(refusal)
            return
        }
        do {
            if DeliveryRoutes.owns(path) { return try DeliveryRoutes(model: delivery, waits: waits).handle(request, path: path, query: query, responder: responder) }
            try Self.checkParameterNames(query, method: request.method, path: path)
            switch (request.method, path) {
            case ("GET", "/healthz"):
                responder.respond(Self.json(200, .object([ControlBodyKey.status: "ok"])))
            case ("GET", "/metrics"):
                var text = metrics.prometheusText() + PushMetrics.transportText(transportMetrics()) + services.channelEvents.prometheusText()
                if let file = capture.fileWriter {
                    text += PushMetrics.captureFileText(
                        written: file.writtenRecordCount, dropped: file.droppedRecordCount, unsynced: file.unsyncedRecordCount)
                }
                if let forwarder = services.simulatorForwarder { text += forwarder.counts.prometheusText }
                responder.respond(HTTPResponse(status: 200, text: text, contentType: "text/plain; version=0.0.4; charset=utf-8"))
            case ("GET", "/pushes"):
                let filter = try Self.filter(from: query)
                let limit = try Self.integer(query, ControlQueryKey.limit, in: 1...1_000_000)
                // The ring's lines as they are, without building records from them.
                responder.respond(Self.pushes(capture.entries(matching: filter, limit: limit), extra: [:]))
            case ("GET", "/pushes/live"):
                try respondLive(query, request, responder)
            case ("GET", "/pushes/wait"):
                let filter = try Self.filter(from: query)
                let count = try Self.integer(query, ControlQueryKey.count, in: 1...1_000_000) ?? 1
                let seconds = try Self.number(query, ControlQueryKey.timeout, in: 0...Double(Self.maximumWait.components.seconds)) ?? 30
                let capture = capture, waits = waits
                waits.start(connection: request.connection.id) {
                    let result = await capture.waitForEntries(for: filter, count: count, timeout: .milliseconds(Int64(seconds * 1000)))
                    let satisfied = result.ending == .satisfied
                    if result.ending == .cancelled {
                        // Cancelled because the server is stopping (503, with what there was),
                        // or because its client went away: nobody to answer then.
                        guard waits.isStopping else { return }
                        responder.respond(Self.pushes(result.entries, status: 503, extra: [
                            ControlBodyKey.satisfied: .bool(false), ControlBodyKey.error: .string("the mock is stopping"),
                        ]))
                        return
                    }
                    responder.respond(Self.pushes(result.entries, status: satisfied ? 200 : 408, extra: [ControlBodyKey.satisfied: .bool(satisfied)]))
                }
            case ("DELETE", "/pushes"):
                capture.clear()
                responder.respond(HTTPResponse(status: 204))
            case ("GET", "/registry"):
                // Everything pushes are judged by, in one read: the apps, whether unknown
                // tokens are accepted (which no other endpoint shows), keys and devices.
                responder.respond(Self.json(200, ConfigurationJSON.encodeRegistry(services.validator.registry)))
            case ("GET", "/devices"):
                responder.respond(Self.json(200, ConfigurationJSON.encodeDevices(services.validator.registry.devices)))
            case ("PUT", "/devices"):
                // Decoded before the registry is locked; the apps change only through the Swift API.
                let devices = try ConfigurationJSON.decodeDevices(try ConfigurationJSON.parse(request.body),
                                                                  bundleIDs: services.validator.registry.bundleIDs)
                // Left as it is unless asked: the zero-configuration mock keeps accepting other
                // tokens when a test marks one device unregistered.
                let accept = try Self.bool(query, ControlQueryKey.acceptUnknownDevices)
                services.updateRegistry { registry in
                    registry.devices = devices
                    if let accept { registry.acceptsUnknownDevices = accept }
                }
                responder.respond(Self.json(200, ConfigurationJSON.encodeDevices(devices)))
            case ("GET", "/keys"):
                responder.respond(Self.json(200, ConfigurationJSON.encodeKeys(services.validator.registry.keys)))
            case ("PUT", "/keys"):
                let keys = try ConfigurationJSON.decodeKeys(try ConfigurationJSON.parse(request.body),
                                                            bundleIDs: services.validator.registry.bundleIDs)
                services.updateRegistry { $0.keys = keys }
                responder.respond(Self.json(200, ConfigurationJSON.encodeKeys(keys)))
            case ("GET", "/faults"):
                responder.respond(Self.json(200, FaultRule.encodeListing(faults.rulesWithStatistics)))
            case ("PUT", "/faults"):
                try faults.replaceAll(try ConfigurationJSON.decodeFaults(try ConfigurationJSON.parse(request.body)))
                responder.respond(Self.json(200, FaultRule.encodeListing(faults.rulesWithStatistics)))
            case ("POST", "/faults"):
                var rule = try FaultRule(json: try ConfigurationJSON.parse(request.body), path: "fault", defaultID: "")
                if rule.id.isEmpty {
                    // Counting from the rules held, past any id taken (a rule deleted earlier frees its number).
                    let rules = faults.rules
                    rule.id = FaultRule.defaultID(number: rules.count + 1, avoiding: Set(rules.map(\.id)))
                }
                try faults.add(rule)
                responder.respond(Self.json(201, ConfigurationJSON.encodeFaults([rule])))
            case ("DELETE", "/faults"):
                faults.removeAll()
                responder.respond(HTTPResponse(status: 204))
            case let ("DELETE", path) where path.hasPrefix("/faults/"):
                let id = String(path.dropFirst("/faults/".count))
                if faults.remove(id: id) == nil {
                    responder.respond(Self.error(404, "no fault rule with id \"\(id)\""))
                } else {
                    responder.respond(HTTPResponse(status: 204))
                }
            case let (_, path) where ControlChannels.isChannelPath(path):
                if let response = try ControlChannels.handle(
                    request, path: path, query: query, channels: services.validator.channels, events: services.channelEvents) {
                    responder.respond(response)
                } else {
                    responder.respond(Self.methodNotAllowed(request.method, path: path))
                }
            default:
                if let route = InspectionRoute(method: request.method, path: path) {
                    try handle(route, query: query, responder: responder)
                    return
                }
                let allowed = Self.allowedMethods(path: path)
                guard !allowed.isEmpty else {
                    responder.respond(Self.error(404, "no such control endpoint: \(path)"))
                    return
                }
                responder.respond(Self.methodNotAllowed(request.method, path: path))
            }
        } catch let error as ControlChannels.RequestError {
            responder.respond(Self.error(error.status, error.description))
        } catch let error as ConfigurationError {
            responder.respond(Self.error(400, error.description))
        } catch {
            responder.respond(Self.error(400, "\(error)"))
        }
    }

    /// Whether `request` has `authorization: Bearer <token>` (the scheme in any case),
    /// compared in constant time.
    static func carries(_ token: [UInt8], _ request: HTTPRequest) -> Bool {
        guard let value = request.headers["authorization"] else { return false }
        let bytes = Array(value.utf8)
        let scheme = Array("bearer ".utf8)
        guard bytes.count > scheme.count, bytes.prefix(scheme.count).map({ $0 | 0x20 }) == scheme else { return false }
        return ConstantTime.equals(Array(bytes.dropFirst(scheme.count)), token)
    }

    // MARK: Query parsing

    struct QueryError: Error, CustomStringConvertible {
        var description: String
    }

    /// The query parameters an endpoint reads; nil when `method` and `path` are no endpoint
    /// (answered 404 or 405).
    static func acceptedParameters(method: String, path: String) -> [String]? {
        switch (method, path) {
        case ("GET", "/pushes"): ControlQueryKey.filters + [ControlQueryKey.limit]
        case ("GET", "/pushes/live"): liveParameters
        case ("GET", "/pushes/wait"): [ControlQueryKey.count, ControlQueryKey.timeout] + ControlQueryKey.filters
        case ("PUT", "/devices"): [ControlQueryKey.acceptUnknownDevices]
        case ("GET", "/healthz"), ("GET", "/metrics"), ("DELETE", "/pushes"), ("GET", "/registry"), ("GET", "/devices"), ("GET", "/keys"), ("PUT", "/keys"),
             ("GET", "/faults"), ("PUT", "/faults"), ("POST", "/faults"), ("DELETE", "/faults"):
            []
        case let ("DELETE", path) where path.hasPrefix("/faults/"): []
        case let (method, path) where ControlChannels.isChannelPath(path): ControlChannels.acceptedParameters(method: method, path: path)
        default: InspectionRoute(method: method, path: path)?.parameters
        }
    }

    /// The methods the control API answers on some path.
    static let methods = ["GET", "PUT", "POST", "DELETE"]

    /// The methods `path` answers, for a 405's `allow` header; empty when it is no endpoint.
    static func allowedMethods(path: String) -> [String] {
        methods.filter { acceptedParameters(method: $0, path: path) != nil }
    }

    /// Refuses a query parameter the endpoint does not read: a misspelt filter would
    /// otherwise widen a listing or a wait, and a misspelt flag change nothing, in silence.
    static func checkParameterNames(_ query: QueryParameters, method: String, path: String) throws {
        if let part = query.undecodablePart {
            throw QueryError(description: "query parameter \(JSONValue.string(part)) does not decode: "
                + "percent-encode each byte as %XX (two hex digits), and encode UTF-8 text")
        }
        if let name = query.repeatedName {
            throw QueryError(description: "query parameter \(JSONValue.string(name)) is given more than once; give it once")
        }
        guard let accepted = acceptedParameters(method: method, path: path),
            let unknown = query.names.first(where: { !accepted.contains($0) })
        else { return }
        // Names are snake_case, as the bodies' fields are: for a camelCase one, the fix beats a list.
        let expected = if let renamed = JSONKeyConvention.renamed(unknown, among: accepted) {
            "it is now \(JSONValue.string(renamed))"
        } else if accepted.isEmpty {
            "\(method) \(path) takes none"
        } else {
            "expected one of \(accepted.joined(separator: ", "))"
        }
        throw QueryError(description: "unknown query parameter \(JSONValue.string(unknown)); \(expected)")
    }

    static func filter(from query: QueryParameters) throws -> CaptureFilter {
        var filter = CaptureFilter.all
        if let text = query[ControlQueryKey.deviceToken] {
            guard let token = DeviceToken(text) else {
                throw QueryError(description: "\(ControlQueryKey.deviceToken): expected hex digits, found \"\(text)\"")
            }
            filter.deviceToken = token
        }
        if let prefix = query[ControlQueryKey.deviceTokenPrefix] {
            guard prefix.withBorrowedUTF8({ HexDigits.areHex($0, allowingUppercase: true) }) else {
                throw QueryError(description: "\(ControlQueryKey.deviceTokenPrefix): expected hex digits, found \"\(prefix)\"")
            }
            filter.deviceTokenPrefix = prefix
        }
        filter.topic = query[ControlQueryKey.topic]
        if let type = query[ControlQueryKey.pushType] {
            guard let pushType = APNsPushType(rawValue: type) else {
                throw QueryError(description: "\(ControlQueryKey.pushType): expected one of "
                    + "\(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(type)\"")
            }
            filter.pushType = pushType
        }
        if let name = query[ControlQueryKey.environment] {
            guard let environment = APNsEnvironment(rawValue: name) else {
                throw QueryError(description: "\(ControlQueryKey.environment): expected production or sandbox, found \"\(name)\"")
            }
            filter.environment = environment
        }
        if let outcome = query[ControlQueryKey.outcome] {
            switch outcome {
            case "accepted": filter.outcome = .accepted
            case "rejected": filter.outcome = .rejected
            default: throw QueryError(description: "\(ControlQueryKey.outcome): expected \"accepted\" or \"rejected\", found \"\(outcome)\"")
            }
        }
        if let reason = query[ControlQueryKey.reason] { filter.reason = APNsReason(wireValue: reason) }
        filter.apnsID = query[ControlQueryKey.apnsID]
        filter.uniqueID = query[ControlQueryKey.uniqueID]
        filter.since = try time(query, ControlQueryKey.since)
        filter.until = try time(query, ControlQueryKey.until)
        return filter
    }

    /// Epoch milliseconds, or ISO-8601 such as `2026-11-30T10:00:00Z`.
    static func time(_ query: QueryParameters, _ name: String) throws -> Date? {
        guard let text = query[name] else { return nil }
        if let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        if let date = ConfigurationTime.date(iso8601: text) { return date }
        throw QueryError(description: "\(name): expected epoch milliseconds or an ISO-8601 time, found \"\(text)\"")
    }

    static func bool(_ query: QueryParameters, _ name: String) throws -> Bool? {
        switch query[name] {
        case nil: return nil
        case "true": return true
        case "false": return false
        case let text?: throw QueryError(description: "\(name): expected true or false, found \"\(text)\"")
        }
    }

    static func integer(_ query: QueryParameters, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw QueryError(description: "\(name): expected an integer from \(range.lowerBound) to \(range.upperBound), found \"\(text)\"")
        }
        return value
    }

    static func number(_ query: QueryParameters, _ name: String, in range: ClosedRange<Double>) throws -> Double? {
        guard let text = query[name] else { return nil }
        guard let value = Double(text), range.contains(value) else {
            throw QueryError(description: "\(name): expected seconds from \(Int(range.lowerBound)) to \(Int(range.upperBound)), found \"\(text)\"")
        }
        return value
    }

    // MARK: Responses

    /// 405 with an `allow` header naming what `path` answers.
    static func methodNotAllowed(_ method: String, path: String) -> HTTPResponse {
        let allowed = allowedMethods(path: path)
        var response = error(405, "\(method) is not allowed on \(path); it answers \(allowed.joined(separator: ", "))")
        response.headers.add(name: "allow", value: allowed.joined(separator: ", "))
        return response
    }

    static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        var body: [UInt8] = []
        JSONWriter.write(value, into: &body)
        body.append(UInt8(ascii: "\n"))
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }

    static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, .object([ControlBodyKey.error: .string(message)]))
    }

    /// `{"count":N,"pushes":[<capture records, exactly as in the capture file>], …extra}`.
    /// The entries' lines as they are, without building records from them; room for all of
    /// them is reserved once.
    static func pushes(_ entries: [CaptureEntry], status: Int = 200, extra: [String: JSONValue]) -> HTTPResponse {
        pushes(count: entries.count, status: status, extra: extra) { body in
            body.reserveCapacity(body.count + entries.reduce(16) { $0 + $1.byteCount })
            for (index, entry) in entries.enumerated() {
                if index > 0 { body.append(UInt8(ascii: ",")) }
                entry.write(into: &body)
                if body.last == UInt8(ascii: "\n") { body.removeLast() }
            }
        }
    }

    /// `{"count":N,<extra>,"pushes":[...]}`, with `writeLines` writing the array's elements.
    private static func pushes(
        count: Int, status: Int = 200, extra: [String: JSONValue], writeLines: (inout [UInt8]) -> Void
    ) -> HTTPResponse {
        var body: [UInt8] = [UInt8(ascii: "{")]
        JSONWriter.writeString(ControlBodyKey.count, into: &body)
        body.append(contentsOf: ":\(count),".utf8)
        for (key, value) in extra.sorted(by: { $0.key < $1.key }) {
            JSONWriter.writeString(key, into: &body)
            body.append(UInt8(ascii: ":"))
            JSONWriter.write(value, into: &body)
            body.append(UInt8(ascii: ","))
        }
        JSONWriter.writeString(ControlBodyKey.pushes, into: &body)
        body.append(contentsOf: ":[".utf8)
        writeLines(&body)
        body.append(contentsOf: "]}\n".utf8)
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: body)
    }
}
