import APNsCore
import Foundation
import HTTPTransport
import JWTVerify

/// The HTTP/2 side of one APNs listener: turns requests into `PushRequest`s, asks the
/// connection's ``PushHandler``, records the push, answers the way APNs does, steers the
/// connection, and tells observers.
///
/// Transport, decision and observation stay apart, as in pushy's mock: this type does no
/// validation itself and observers cannot change an answer. The capture is the one step
/// between decision and answer: with a capture file, a push is answered only once its line
/// is in the file (`write(2)` returned), and 500 `InternalServerError` if it could not be
/// written, so no answer claims a capture that did not happen.
final class APNsEndpoint: HTTPServerHandler {
    let environment: APNsEnvironment
    let services: MockServices

    init(environment: APNsEnvironment, services: MockServices) {
        self.environment = environment
        self.services = services
    }

    func connectionOpened(_ connection: HTTPConnection) {
        services.metrics.connectionOpened()
        let info = PushConnectionInfo(id: connection.id, environment: environment, peerCertificate: connection.peerCertificate)
        var state = EndpointConnectionState(handler: services.handlers.makeHandler(for: info))
        // A verified client certificate authenticates the whole connection at once.
        if info.peerCertificate != nil {
            state.streams.granted = true
            connection.setMaxConcurrentStreams(services.streamPolicy.maxConcurrentStreams)
        }
        connection[EndpointConnectionState.Key.self] = EndpointConnectionState.Box(
            state, answers: services.answerQueue(for: connection.eventLoop))
    }

    func connectionClosed(_ connection: HTTPConnection) {
        services.metrics.connectionClosed()
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let started = ContinuousClock.now
        let connection = request.connection
        let push = PushRequest(
            method: request.method, path: request.path, headers: request.headers, body: request.body,
            environment: environment, connectionID: connection.id, receivedAt: Date())
        let box = state(of: connection)

        let validation = box.state.handler.handle(push)
        let faults = services.faults.evaluate(validation.details, at: push.receivedAt)
        let outcome = Self.outcome(
            of: validation, faults: faults,
            apnsID: validation.details.messageID ?? services.ids.next(),
            uniqueID: environment == .sandbox ? services.ids.next() : nil)

        // A reset stream or closed connection is a fault, not an APNs answer: the limit stays.
        if outcome.status != 0, let limit = services.streamPolicy.newLimit(
            after: outcome.isAccepted, authenticated: validation.connectionAuthenticated, state: &box.state.streams) {
            connection.setMaxConcurrentStreams(limit)
        }
        let fired = faults.firedRules.map { "\($0.id): \($0.summary)" }
        var captured = CaptureRecord(request: push, details: validation.details, outcome: outcome, faults: fired)
        captured.injected = faults.decidesAnswer
        record(captured, box: box, responder: responder, connection: connection) { [self] in
            answer(outcome, faults: faults, responder: responder, connection: connection)
        }
        for observer in services.observers {
            observer.pushAnswered(push, details: validation.details, outcome: outcome, faults: fired)
        }
        // A delay rule's answer goes out later; its latency is what the client waits.
        services.metrics.recordPush(
            environment: environment, reason: outcome.reason, answered: outcome.status != 0,
            latency: started.duration(to: .now) + faults.delay)
    }

    /// The connection's handler and stream-limit state, made on first use.
    private func state(of connection: HTTPConnection) -> EndpointConnectionState.Box {
        if let box = connection[EndpointConnectionState.Key.self] { return box }
        let info = PushConnectionInfo(id: connection.id, environment: environment, peerCertificate: connection.peerCertificate)
        let box = EndpointConnectionState.Box(
            EndpointConnectionState(handler: services.handlers.makeHandler(for: info)),
            answers: services.answerQueue(for: connection.eventLoop))
        connection[EndpointConnectionState.Key.self] = box
        return box
    }

    /// Records `push`, then runs `answer`: at once when the capture keeps no file; otherwise
    /// on the connection's loop once the line is written, or answers 500
    /// `InternalServerError` instead if it could not be. Never waits for the disk: when the
    /// file is behind, the connection stops reading until its lines are written.
    private func record(
        _ push: CaptureRecord, box: EndpointConnectionState.Box, responder: HTTPResponder, connection: HTTPConnection,
        then answer: @escaping @Sendable () -> Void
    ) {
        let capture = services.capture
        guard capture.fileWriter != nil else {
            capture.record(push)
            answer()
            return
        }
        let answers = box.answers, apnsID = push.outcome.apnsID, uniqueID = push.outcome.uniqueID
        box.state.unacknowledgedLines += 1
        let receipt = capture.record(push) { result in
            answers.add {
                if case .written = result {
                    answer()
                } else {
                    responder.respond(Self.response(for: .rejected(.internalServerError, apnsID: apnsID, uniqueID: uniqueID)))
                }
                box.state.unacknowledgedLines -= 1
                if box.state.readingPaused, box.state.unacknowledgedLines == 0 {
                    box.state.readingPaused = false
                    connection.resumeReading()
                }
            }
        }
        if receipt.backlogged, !box.state.readingPaused {
            box.state.readingPaused = true
            connection.pauseReading()
        }
    }

    /// The answer: the handler's, unless a fault rule answers the stream instead, and what
    /// the connection does after it (a fault's GOAWAY included, so the capture says so).
    ///
    /// A stream reset or a closed connection has no HTTP answer; its outcome has status 0.
    static func outcome(of validation: PushDecision, faults: FaultDecision, apnsID: String, uniqueID: String?) -> PushOutcome {
        if faults.connectionAction == .close {
            return PushOutcome(status: 0, reason: nil, apnsID: apnsID, uniqueID: uniqueID, timestamp: nil, connectionAction: .close)
        }
        var outcome: PushOutcome
        switch faults.response {
        case nil:
            outcome = validation.outcome(apnsID: apnsID, uniqueID: uniqueID)
        case let .status(status, reason, timestamp):
            outcome = PushOutcome(status: status, reason: reason, apnsID: apnsID, uniqueID: uniqueID, timestamp: timestamp,
                                  connectionAction: .none)
        case .resetStream:
            outcome = PushOutcome(status: 0, reason: nil, apnsID: apnsID, uniqueID: uniqueID, timestamp: nil, connectionAction: .none)
        }
        if case .goAway = faults.connectionAction { outcome.connectionAction = .goAway }
        return outcome
    }

    /// Sends the answer (after any fault delay) and applies connection actions in APNs' order:
    /// the stream is answered first, then GOAWAY follows.
    private func answer(_ outcome: PushOutcome, faults: FaultDecision, responder: HTTPResponder, connection: HTTPConnection) {
        switch faults.connectionAction {
        case .close:
            connection.close()
            return
        case let .goAway(errorCode, debugData):
            respond(outcome, faults: faults, responder: responder)
            Self.sendGoAway(errorCode: errorCode, debugData: debugData, after: faults.delay, on: connection)
            return
        case nil:
            break
        }
        respond(outcome, faults: faults, responder: responder)
        if outcome.connectionAction == .goAway, let reason = outcome.reason {
            Self.sendGoAway(
                errorCode: .noError, debugData: APNsErrorResponse(reason: reason).jsonBytes, after: faults.delay, on: connection)
        }
    }

    /// Sends GOAWAY once the answer's frames are out. Submitted at once, the transport would
    /// write GOAWAY ahead of the answer's DATA (it runs while the request is being read, and
    /// control frames go before data), or ahead of an answer held back by a delay rule.
    private static func sendGoAway(errorCode: HTTP2ErrorCode, debugData: [UInt8], after delay: Duration, on connection: HTTPConnection) {
        let send: @Sendable () -> Void = { connection.sendGoAway(errorCode: errorCode, debugData: debugData) }
        if delay > .zero {
            // The delayed answer is scheduled first; hop once more so it is surely written before.
            connection.eventLoop.scheduleTask(after: delay) { connection.eventLoop.execute(send) }
        } else {
            connection.eventLoop.execute(send)
        }
    }

    private func respond(_ outcome: PushOutcome, faults: FaultDecision, responder: HTTPResponder) {
        if case let .resetStream(errorCode) = faults.response {
            responder.reset(errorCode: errorCode)
        } else if faults.delay > .zero {
            responder.respond(Self.response(for: outcome), after: faults.delay)
        } else {
            responder.respond(Self.response(for: outcome))
        }
    }

    /// A push the transport stopped reading is answered in APNs' JSON, so a client parses it
    /// like any rejection. Fault rules do not apply to any of them.
    ///
    /// - A body far past any APNs limit is not read to its end, but the push still goes
    ///   through validation in APNs' order: a wrong method, path, header or token is answered
    ///   as such, and anything that passes them gets 413 `PayloadTooLarge` (step 15). The
    ///   stream limit, the capture and the metrics see it as any push, and it is answered
    ///   once captured, as any push.
    /// - A header list past the listener's limit is 431 (`RequestHeaderFieldsTooLarge`, the
    ///   mock's own reason). It goes through validation, whose step 0 decides it, and is
    ///   captured with the headers that fit; stream limit and metrics see it as any push.
    /// - A push not read whole within the listener's request read timeout is answered by
    ///   ``rejectedRequestResponse(_:rejection:)``.
    func handleRejected(_ request: HTTPRequest, rejection: HTTPRequestRejection, responder: HTTPResponder) {
        switch rejection.kind {
        case .bodyTooLarge, .headerListTooLarge:
            var push = unreadPush(request)
            if rejection.kind == .bodyTooLarge {
                push.oversizedBodyLimit = rejection.limit ?? 0
            } else {
                push.oversizedHeaderListLimit = rejection.limit ?? 0
            }
            answerUnread(push, on: request.connection, responder: responder)
        default:
            responder.respond(rejectedRequestResponse(request, rejection: rejection))
        }
    }

    /// The answer to a refusal that is not a push: a push not read whole within the
    /// listener's request read timeout is 408 (`RequestTimeout`, the mock's own reason), and
    /// the transport then sends GOAWAY. It never arrived, so it is not validated or captured;
    /// the metrics count it. Malformed HTTP/1.1 and unsupported versions cannot reach an
    /// HTTP/2-only listener (nghttp2 refuses bad frames itself); should one come, the
    /// transport's answer stands.
    func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
        switch rejection.kind {
        case .requestTimeout:
            let outcome = PushOutcome.rejected(
                .requestTimeout, apnsID: Self.echoedID(request.headers[APNsHeaderName.id]) ?? services.ids.next(),
                uniqueID: environment == .sandbox ? services.ids.next() : nil)
            services.metrics.recordPush(environment: environment, reason: outcome.reason, latency: .zero)
            return Self.response(for: outcome)
        default:
            return rejection.defaultResponse
        }
    }

    /// What the transport read of a push it stopped reading: everything but the body.
    private func unreadPush(_ request: HTTPRequest) -> PushRequest {
        PushRequest(method: request.method, path: request.path, headers: request.headers, body: [],
                    environment: environment, connectionID: request.connection.id, receivedAt: Date())
    }

    /// Decides, records, answers and reports a push the transport stopped reading (a body
    /// or header list over its limit), which never reaches `handle`.
    private func answerUnread(_ push: PushRequest, on connection: HTTPConnection, responder: HTTPResponder) {
        let box = state(of: connection)
        let validation = box.state.handler.handle(push)
        let outcome = validation.outcome(
            apnsID: validation.details.messageID ?? services.ids.next(),
            uniqueID: environment == .sandbox ? services.ids.next() : nil)
        if let limit = services.streamPolicy.newLimit(
            after: outcome.isAccepted, authenticated: validation.connectionAuthenticated, state: &box.state.streams) {
            connection.setMaxConcurrentStreams(limit)
        }
        record(CaptureRecord(request: push, details: validation.details, outcome: outcome, faults: []), box: box,
               responder: responder, connection: connection) {
            responder.respond(Self.response(for: outcome))
            if outcome.connectionAction == .goAway, let reason = outcome.reason {
                Self.sendGoAway(errorCode: .noError, debugData: APNsErrorResponse(reason: reason).jsonBytes, after: .zero, on: connection)
            }
        }
        for observer in services.observers {
            observer.pushAnswered(push, details: validation.details, outcome: outcome, faults: [])
        }
        services.metrics.recordPush(environment: environment, reason: outcome.reason, latency: .zero)
    }

    /// APNs echoes a valid `apns-id`; an invalid one is answered with a fresh id.
    static func echoedID(_ header: String?) -> String? {
        guard let header, APNsIDGenerator.isCanonicalUUID(header) else { return nil }
        return header
    }

    /// The HTTP response APNs sends for `outcome`.
    static func response(for outcome: PushOutcome) -> HTTPResponse {
        // Room for every header an answer can have, in the one allocation of its field list.
        var headers = HTTPHeaders()
        headers.reserveCapacity(3)
        headers.add(name: APNsHeaderName.id, value: outcome.apnsID)
        if let uniqueID = outcome.uniqueID { headers.add(name: APNsHeaderName.uniqueID, value: uniqueID) }
        guard let reason = outcome.reason else { return HTTPResponse(status: outcome.status, headers: headers) }
        headers.add(name: APNsHeaderName.contentType, value: "application/json")
        return HTTPResponse(
            status: outcome.status, headers: headers,
            body: APNsErrorResponse(reason: reason, timestamp: outcome.timestamp).jsonBytes)
    }
}
