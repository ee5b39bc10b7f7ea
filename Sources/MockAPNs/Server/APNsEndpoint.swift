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
/// written, so no answer claims a capture that did not happen. The metrics, and observers
/// that wait for it (simulator forwarding), hear the answer the client gets, once it is
/// final; a 500 of that kind also takes the push back from the capture's ring and the
/// delivery model (``PushOutcome/unwritten(_:)``).
final class APNsEndpoint: HTTPServerHandler {
    /// The header that carries a rejection's explanation when `MockServerSettings.explanationHeader`
    /// is on; not an `apns-` name, which is Apple's to define.
    static let explanationHeaderName = "x-apns-mock-explanation"
    /// The body of the 505 an HTTP/1.x request gets.
    static let http2OnlyMessage = "APNs speaks HTTP/2 only, and so does this mock: send the request over HTTP/2 "
        + "(curl --http2 over TLS, --http2-prior-knowledge without TLS)\n"

    let environment: APNsEnvironment
    let services: MockServices
    /// Whether answers carry ``explanationHeaderName``.
    let explainsInHeader: Bool

    init(environment: APNsEnvironment, services: MockServices, explainsInHeader: Bool = false) {
        self.environment = environment
        self.services = services
        self.explainsInHeader = explainsInHeader
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
        var decided = Self.outcome(
            of: validation, faults: faults,
            apnsID: validation.details.messageID ?? services.ids.next(),
            uniqueID: environment == .sandbox ? services.ids.next() : nil)
        chargeErrorBudget(&decided, state: &box.state)
        if BroadcastPath.isBroadcast(push.path) { decided.requestID = Self.echoedID(push.headers[APNsHeaderName.requestID]) ?? services.ids.next() }
        let outcome = decided

        // A reset stream or closed connection is a fault, not an APNs answer: the limit stays.
        if outcome.status != 0, let limit = services.streamPolicy.newLimit(
            after: outcome.isAccepted, authenticated: validation.connectionAuthenticated, state: &box.state.streams) {
            connection.setMaxConcurrentStreams(limit)
        }
        let fired = faults.firedRules.map { "\($0.id): \($0.summary)" }
        let tellFinal = finalObservers(push, details: validation.details, faults: fired)
        record(CaptureRecord(request: push, details: validation.details, outcome: outcome, faults: fired), box: box,
               connection: connection) { [self] written in
            let final = written ? outcome : .unwritten(outcome)
            tellFinal?(final)
            // A delay rule's answer goes out later; its latency is what the client waits.
            services.metrics.recordPush(environment: environment, reason: final.reason, answered: final.status != 0,
                                        latency: started.duration(to: .now) + faults.delay)
            if final.requestID != nil {
                services.channelEvents.recordBroadcast(environment: environment, status: final.status, reason: final.reason)
            }
            if written {
                answer(outcome, faults: faults, responder: responder, connection: connection)
            } else {
                responder.respond(response(for: final))
            }
        }
        for observer in services.decisionObservers {
            observer.pushAnswered(push, details: validation.details, outcome: outcome, faults: fired)
        }
    }

    /// What tells the observers that wait for it the final answer, nil when there are none:
    /// only then is the push held until its line's write.
    private func finalObservers(_ push: PushRequest, details: PushDetails, faults: [String]) -> (@Sendable (PushOutcome) -> Void)? {
        let observers = services.finalObservers
        guard !observers.isEmpty else { return nil }
        return { outcome in
            for observer in observers { observer.pushAnswered(push, details: details, outcome: outcome, faults: faults) }
        }
    }

    /// Charges a rejection to the connection's error budget; the one that uses it up ends
    /// the connection with GOAWAY and its own reason, as a fatal reason does.
    private func chargeErrorBudget(_ outcome: inout PushOutcome, state: inout EndpointConnectionState) {
        guard outcome.connectionAction == .none, outcome.reason != nil,
              services.errorBudget.charge(outcome.status, state: &state.errors) else { return }
        outcome.connectionAction = .goAway
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

    /// Records `push` (and hands it to the delivery model, if on), then runs `finish`: at
    /// once when the capture keeps no file; otherwise on the connection's loop once the line
    /// is written. If it could not be, the ring and the delivery model are first made to
    /// agree with the 500 the push gets (``MockServices/takeBack(_:answer:receivedAtMicroseconds:deviceToken:)``)
    /// and `finish` hears `false`: it then answers, reports and forwards nothing but that 500.
    /// Never waits for the disk: when the file is behind, the connection stops reading until
    /// its lines are written. The delivery changes the push makes go to the file with its line.
    private func record(
        _ push: CaptureRecord, box: EndpointConnectionState.Box, connection: HTTPConnection,
        then finish: @escaping @Sendable (_ written: Bool) -> Void
    ) {
        let capture = services.capture
        guard capture.fileWriter != nil else {
            capture.record(push)
            services.delivery?.file(push)
            finish(true)
            return
        }
        let services = services, answers = box.answers, decided = push.outcome
        let receivedAt = push.receivedAtMicroseconds, deviceToken = push.deviceToken
        box.state.unacknowledgedLines += 1
        let acknowledgement: CaptureAcknowledgement = { result in
            answers.add {
                if case .written = result {
                    finish(true)
                } else {
                    services.takeBack(decided, answer: .unwritten(decided), receivedAtMicroseconds: receivedAt, deviceToken: deviceToken)
                    finish(false)
                }
                box.state.unacknowledgedLines -= 1
                if box.state.readingPaused, box.state.unacknowledgedLines == 0 {
                    box.state.readingPaused = false
                    connection.resumeReading()
                }
            }
        }
        let receipt = services.delivery?.file(push, recordingIn: capture, acknowledgement: acknowledgement)
            ?? capture.record(push, acknowledgement: acknowledgement)
        if receipt.backlogged, !box.state.readingPaused {
            box.state.readingPaused = true
            connection.pauseReading()
        }
    }

    /// The answer: the handler's, unless a fault rule answers the stream instead, and what
    /// the connection does after it (a fault's GOAWAY included, so the capture says so).
    ///
    /// A stream reset or a closed connection has no HTTP answer; its outcome has status 0.
    /// An answer a fault rule chose is marked injected and names the rules, so that neither a
    /// person nor push-inspect takes it for the sender's failure.
    static func outcome(of validation: PushDecision, faults: FaultDecision, apnsID: String, uniqueID: String?) -> PushOutcome {
        if faults.connectionAction == .close {
            return PushOutcome(status: 0, reason: nil, apnsID: apnsID, uniqueID: uniqueID, timestamp: nil, connectionAction: .close,
                               explanation: injectedExplanation(faults, "closed the connection", instead: validation), isInjected: true)
        }
        var outcome: PushOutcome
        switch faults.response {
        case nil:
            outcome = validation.outcome(apnsID: apnsID, uniqueID: uniqueID)
        case let .status(status, reason, timestamp):
            outcome = PushOutcome(status: status, reason: reason, apnsID: apnsID, uniqueID: uniqueID, timestamp: timestamp,
                                  connectionAction: .none,
                                  explanation: injectedExplanation(faults, "answered \(status) \(reason.wireValue)", instead: validation),
                                  isInjected: true)
        case .resetStream:
            outcome = PushOutcome(status: 0, reason: nil, apnsID: apnsID, uniqueID: uniqueID, timestamp: nil, connectionAction: .none,
                                  explanation: injectedExplanation(faults, "reset the stream", instead: validation), isInjected: true)
        }
        if case .goAway = faults.connectionAction { outcome.connectionAction = .goAway }
        return outcome
    }

    /// "fault rule outage answered 503 ServiceUnavailable in place of the mock's own answer, 200".
    private static func injectedExplanation(_ faults: FaultDecision, _ what: String, instead validation: PushDecision) -> String {
        let rules = faults.firedRules.map(\.id)
        let who = rules.count == 1 ? "fault rule \(rules[0])" : "fault rules \(rules.joined(separator: ", "))"
        let own = validation.reason.map { "\(validation.status) \($0.wireValue)" } ?? "200"
        return "\(who) \(what) in place of the mock's own answer, \(own)"
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
        // Refused only once the mock has stopped its loops, which closed the connection.
        if delay > .zero {
            // The delayed answer is scheduled first; hop once more so it is surely written before.
            try? connection.eventLoop.scheduleTask(after: delay) { try? connection.eventLoop.execute(send) }
        } else {
            try? connection.eventLoop.execute(send)
        }
    }

    private func respond(_ outcome: PushOutcome, faults: FaultDecision, responder: HTTPResponder) {
        if case let .resetStream(errorCode) = faults.response {
            responder.reset(errorCode: errorCode)
        } else if faults.delay > .zero {
            responder.respond(response(for: outcome), after: faults.delay)
        } else {
            responder.respond(response(for: outcome))
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
    /// the metrics count it. A push still unanswered when the mock's shutdown grace period
    /// ends (held by a `delay` rule, or still arriving) is 503 `Shutdown`, as APNs answers
    /// when it shuts down; the metrics and the capture keep what was decided for it, if
    /// anything. An HTTP/1.x request is answered 505 in HTTP/1.1 with a sentence saying APNs
    /// speaks HTTP/2 only (the transport then closes), counted and told to the observers; it
    /// is not a push, so it is not captured. Anything else the transport refuses keeps the
    /// transport's answer.
    func rejectedRequestResponse(_ request: HTTPRequest, rejection: HTTPRequestRejection) -> HTTPResponse {
        let reason: APNsReason
        switch rejection.kind {
        case .http2Only:
            services.metrics.recordHTTP1Request(environment: environment)
            for observer in services.observers {
                observer.http1RequestRefused(environment: environment, connectionID: request.connection.id,
                                             method: request.method, path: request.path)
            }
            return HTTPResponse(status: rejection.status, text: Self.http2OnlyMessage)
        case .requestTimeout: reason = .requestTimeout
        case .shuttingDown: reason = .shutdown
        default: return rejection.defaultResponse
        }
        let outcome = PushOutcome.rejected(
            reason, apnsID: Self.echoedID(request.headers[APNsHeaderName.id]) ?? services.ids.next(),
            uniqueID: environment == .sandbox ? services.ids.next() : nil)
        if reason == .requestTimeout {
            services.metrics.recordPush(environment: environment, reason: outcome.reason, latency: .zero)
        }
        return response(for: outcome)
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
        var decided = validation.outcome(
            apnsID: validation.details.messageID ?? services.ids.next(),
            uniqueID: environment == .sandbox ? services.ids.next() : nil)
        chargeErrorBudget(&decided, state: &box.state)
        if BroadcastPath.isBroadcast(push.path) { decided.requestID = Self.echoedID(push.headers[APNsHeaderName.requestID]) ?? services.ids.next() }
        let outcome = decided
        if let limit = services.streamPolicy.newLimit(
            after: outcome.isAccepted, authenticated: validation.connectionAuthenticated, state: &box.state.streams) {
            connection.setMaxConcurrentStreams(limit)
        }
        let tellFinal = finalObservers(push, details: validation.details, faults: [])
        record(CaptureRecord(request: push, details: validation.details, outcome: outcome, faults: []), box: box,
               connection: connection) { [self] written in
            let final = written ? outcome : .unwritten(outcome)
            tellFinal?(final)
            services.metrics.recordPush(environment: environment, reason: final.reason, latency: .zero)
            responder.respond(response(for: final))
            if written, outcome.connectionAction == .goAway, let reason = outcome.reason {
                Self.sendGoAway(errorCode: .noError, debugData: APNsErrorResponse(reason: reason).jsonBytes, after: .zero, on: connection)
            }
        }
        for observer in services.decisionObservers {
            observer.pushAnswered(push, details: validation.details, outcome: outcome, faults: [])
        }
    }

    /// APNs echoes a valid `apns-id`; an invalid one is answered with a fresh id.
    static func echoedID(_ header: String?) -> String? {
        guard let header, APNsIDGenerator.isCanonicalUUID(header) else { return nil }
        return header
    }

    /// The HTTP response APNs sends for `outcome`.
    func response(for outcome: PushOutcome) -> HTTPResponse {
        // Room for every header an answer can have, in the one allocation of its field list.
        var headers = HTTPHeaders()
        headers.reserveCapacity(4)
        if let requestID = outcome.requestID {
            headers.add(name: APNsHeaderName.requestID, value: requestID)
        } else {
            headers.add(name: APNsHeaderName.id, value: outcome.apnsID)
        }
        if let uniqueID = outcome.uniqueID { headers.add(name: APNsHeaderName.uniqueID, value: uniqueID) }
        guard let reason = outcome.reason else { return HTTPResponse(status: outcome.status, headers: headers) }
        headers.add(name: APNsHeaderName.contentType, value: "application/json")
        if explainsInHeader, let explanation = outcome.explanation {
            headers.add(name: Self.explanationHeaderName, value: Self.headerValue(explanation))
        }
        return HTTPResponse(
            status: outcome.status, headers: headers,
            body: APNsErrorResponse(reason: reason, timestamp: outcome.timestamp).jsonBytes)
    }

    /// `text` as a header value: printable ASCII as it is, anything else (and `\`) as
    /// `\u{…}`, so a topic or token the sender chose can neither break the header nor
    /// reorder what a terminal shows.
    static func headerValue(_ text: String) -> String {
        var value = ""
        value.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if (0x20...0x7E).contains(scalar.value), scalar != "\\" {
                value.unicodeScalars.append(scalar)
            } else {
                value += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return value
    }
}
