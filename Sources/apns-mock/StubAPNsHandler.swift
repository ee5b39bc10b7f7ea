import HTTPTransport
import Synchronization

/// Answers `POST /3/device/<hex token>` with 200 and an `apns-id`, as APNs does.
///
/// Anything else gets APNs' status and `{"reason":...}` body for that mistake.
struct StubAPNsHandler: HTTPServerHandler {
    private let ids = RequestIDGenerator()

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        let apnsID = request.headers["apns-id"] ?? ids.next()
        func reject(_ status: Int, _ reason: String) {
            responder.respond(HTTPResponse(
                status: status, headers: ["apns-id": apnsID, "content-type": "application/json"],
                body: Array("{\"reason\":\"\(reason)\"}".utf8)))
        }
        guard request.method == "POST" else { return reject(405, "MethodNotAllowed") }
        let prefix = "/3/device/"
        guard request.path.hasPrefix(prefix) else { return reject(404, "BadPath") }
        let token = request.path.utf8.dropFirst(prefix.utf8.count)
        guard !token.isEmpty else { return reject(400, "MissingDeviceToken") }
        guard token.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }) else {
            return reject(400, "BadDeviceToken")
        }
        guard !request.body.isEmpty else { return reject(400, "PayloadEmpty") }
        responder.respond(HTTPResponse(status: 200, headers: ["apns-id": apnsID]))
    }
}

/// Lowercase UUID-shaped ids from a random prefix and a counter: unique and cheap.
final class RequestIDGenerator: Sendable {
    private let prefix: String
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let hex = String(high, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        let chars = Array(padded)
        prefix = "\(String(chars[0..<8]))-\(String(chars[8..<12]))-4\(String(chars[13..<16]))-"
    }

    func next() -> String {
        let value = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        let hex = String(value, radix: 16)
        let padded = String(repeating: "0", count: 16 - hex.count) + hex
        return prefix + "a" + padded.dropFirst(13) + "-" + padded.dropFirst(4)
    }
}
