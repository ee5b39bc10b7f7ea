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
        let prefix: StaticString = "/3/device/"
        var path = request.path
        let verdict = path.withUTF8 { bytes -> (status: Int, reason: String)? in
            let prefixBytes = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
            guard bytes.starts(with: prefixBytes) else { return (404, "BadPath") }
            let token = bytes[prefixBytes.count...]
            guard !token.isEmpty else { return (400, "MissingDeviceToken") }
            for byte in token where !((byte >= 48 && byte <= 57) || (byte | 0x20 >= 97 && byte | 0x20 <= 102)) {
                return (400, "BadDeviceToken")
            }
            return nil
        }
        if let verdict { return reject(verdict.status, verdict.reason) }
        guard !request.body.isEmpty else { return reject(400, "PayloadEmpty") }
        responder.respond(HTTPResponse(status: 200, headers: ["apns-id": apnsID]))
    }
}

/// Lowercase UUID-shaped ids: a random 64-bit prefix fixed at start, then a counter.
///
/// Unique within a run and cheap: no random-number syscall per response.
final class RequestIDGenerator: Sendable {
    private let high: UInt64
    private let counter = Atomic<UInt64>(0)

    init() {
        var generator = SystemRandomNumberGenerator()
        // Version 4 and RFC 4122 variant bits, so the result parses as a UUID everywhere.
        high = (generator.next() & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000
    }

    func next() -> String {
        let low = (counter.wrappingAdd(1, ordering: .relaxed).oldValue & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                for shift in stride(from: (nibbles - 1) * 4, through: 0, by: -4) {
                    buffer[index] = digits.utf8Start[Int((value >> UInt64(shift)) & 0xf)]
                    index += 1
                }
            }
            func dash() { buffer[index] = UInt8(ascii: "-"); index += 1 }
            put(high >> 32, nibbles: 8); dash()
            put(high >> 16, nibbles: 4); dash()
            put(high, nibbles: 4); dash()
            put(low >> 48, nibbles: 4); dash()
            put(low, nibbles: 12)
            return index
        }
    }
}
