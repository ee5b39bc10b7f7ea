import APNsCore
import Foundation
import HTTPTransport
import StrictJSON

/// The HTTP/2 side of one channel management listener (Apple's ports 2195 for the sandbox
/// and 2196 for production): authenticates each request as the APNs listeners do, lets
/// ``PushValidator`` decide it (``PushValidator/decideChannelRequest(_:auth:)``), answers
/// as APNs does, and tells the capture and metrics.
///
/// Answers carry `apns-request-id` (echoed when the request sent a UUID, else new); a
/// create adds the new `apns-channel-id`, a read and a list a JSON body in Apple's keys; an
/// error is `{"reason":"…"}` with `content-type: application/json`.
final class ChannelEndpoint: HTTPServerHandler {
    let environment: APNsEnvironment
    let services: MockServices
    let explainsInHeader: Bool

    init(environment: APNsEnvironment, services: MockServices, explainsInHeader: Bool) {
        self.environment = environment
        self.services = services
        self.explainsInHeader = explainsInHeader
    }

    /// The connection's authentication, kept on its event loop only.
    final class AuthBox: @unchecked Sendable {
        var auth: ConnectionAuthState
        init(_ auth: ConnectionAuthState) { self.auth = auth }
    }

    enum AuthKey: HTTPConnectionStateKey {
        typealias Value = AuthBox
    }

    func connectionOpened(_ connection: HTTPConnection) {
        connection[AuthKey.self] = AuthBox(ConnectionAuthState(environment: environment, peerCertificate: connection.peerCertificate))
    }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let receivedAt = Date()
        let box: AuthBox
        if let existing = request.connection[AuthKey.self] {
            box = existing
        } else {
            box = AuthBox(ConnectionAuthState(environment: environment, peerCertificate: request.connection.peerCertificate))
            request.connection[AuthKey.self] = box
        }
        let decision = services.validator.decideChannelRequest(request, auth: &box.auth)
        answer(request, decision: decision, receivedAt: receivedAt, responder: responder)
    }

    /// A body past the listener's limit is 413 `PayloadTooLarge`, a header list past it 431
    /// as on the APNs listeners; neither is authenticated, and neither changes a channel.
    func handleRejected(_ request: HTTPRequest, rejection: HTTPRequestRejection, responder: HTTPResponder) {
        var decision = ChannelDecision()
        decision.requestID = PushHeaderFields(request.headers).requestID.flatMap { APNsIDGenerator.isCanonicalUUID($0) ? $0 : nil }
        switch rejection.kind {
        case .bodyTooLarge:
            decision.reason = .payloadTooLarge
            decision.message = "the body grew past \(rejection.limit ?? 0) bytes; a channel request allows "
                + "\(PushValidator.maximumChannelRequestBodySize)"
        case .headerListTooLarge:
            decision.reason = .requestHeaderFieldsTooLarge
            decision.message = "the header list is over the listener's limit of \(rejection.limit ?? 0) bytes"
        default:
            responder.respond(rejectedRequestResponse(request, rejection: rejection))
            return
        }
        answer(request, decision: decision, receivedAt: Date(), responder: responder)
    }

    private func answer(_ request: HTTPRequest, decision: ChannelDecision, receivedAt: Date, responder: HTTPResponder) {
        var decision = decision
        if decision.requestID == nil { decision.requestID = services.ids.next() }
        let operation = services.channelEvents.record(
            request: request, decision: decision, environment: environment, receivedAt: receivedAt, capture: services.capture)
        for observer in services.observers { observer.channelRequestAnswered(operation) }
        responder.respond(response(for: decision))
    }

    /// The HTTP answer APNs gives for `decision`.
    func response(for decision: ChannelDecision) -> HTTPResponse {
        var headers = HTTPHeaders()
        if let requestID = decision.requestID { headers.add(name: APNsHeaderName.requestID, value: requestID) }
        if let reason = decision.reason {
            headers.add(name: APNsHeaderName.contentType, value: "application/json")
            if explainsInHeader, let message = decision.message {
                headers.add(name: APNsEndpoint.explanationHeaderName, value: APNsEndpoint.headerValue(message))
            }
            return HTTPResponse(status: decision.status, headers: headers, body: APNsErrorResponse(reason: reason).jsonBytes)
        }
        if let channelID = decision.channelID { headers.add(name: APNsHeaderName.channelID, value: channelID) }
        var body: [UInt8]?
        switch decision.operation {
        case .read:
            if let channel = decision.channel {
                body = Self.json([
                    ChannelBodyKey.messageStoragePolicy: .integer(Int64(channel.storagePolicy.rawValue)),
                    ChannelBodyKey.pushType: .string(APNsChannelStoragePolicy.pushType),
                ])
            }
        case .list:
            body = Self.json([ChannelBodyKey.channels: .array(decision.listed.map { .string($0) })])
        default:
            break
        }
        if body != nil { headers.add(name: APNsHeaderName.contentType, value: "application/json") }
        return HTTPResponse(status: decision.status, headers: headers, body: body)
    }

    private static func json(_ members: [String: JSONValue]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.write(.object(members), into: &bytes)
        return bytes
    }
}
