import APNsCore
import HTTPTransport

/// Answers `POST /3/device/<hex token>` with 200 and an `apns-id`, as APNs does.
///
/// Anything else gets APNs' status and `{"reason":...}` body for that mistake. This stands
/// in until the MockAPNs library validates pushes fully.
struct StubAPNsHandler: HTTPServerHandler {
    private let ids = APNsIDGenerator()
    private static let devicePath: StaticString = "/3/device/"

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let apnsID = request.headers[APNsHeaderName.id] ?? ids.next()
        if let reason = rejection(of: request) {
            responder.respond(HTTPResponse(
                status: reason.status ?? 500,
                headers: [APNsHeaderName.id: apnsID, APNsHeaderName.contentType: "application/json"],
                body: APNsErrorResponse(reason: reason).jsonBytes))
        } else {
            responder.respond(HTTPResponse(status: 200, headers: [APNsHeaderName.id: apnsID]))
        }
    }

    private func rejection(of request: HTTPRequest) -> APNsReason? {
        guard request.method == "POST" else { return .methodNotAllowed }
        var path = request.path
        let reason = path.withUTF8 { bytes -> APNsReason? in
            let prefix = UnsafeBufferPointer(start: Self.devicePath.utf8Start, count: Self.devicePath.utf8CodeUnitCount)
            guard bytes.starts(with: prefix) else { return .badPath }
            let token = bytes[prefix.count...]
            guard !token.isEmpty else { return .missingDeviceToken }
            for byte in token where !((byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)) {
                return .badDeviceToken
            }
            return nil
        }
        if let reason { return reason }
        return request.body.isEmpty ? .payloadEmpty : nil
    }
}
