import Foundation
import StrictJSON

/// The parts of a capture record (docs/capture-format.md) the checks look at, read from
/// the mock's control API.
struct CapturedPush: Sendable {
    var headers: [(name: String, value: String)]
    var payload: [UInt8]
    var status: Int
    var reason: String?
    var apnsID: String?
    var deviceToken: String?
    var environment: String?
    var expiration: Int64?
    var collapseID: String?
    /// `token.fingerprint`: tells provider tokens apart without their text.
    var tokenFingerprint: String?
    /// `token.claims.iat`.
    var issuedAt: Int64?
    /// Arrival time, UNIX seconds.
    var receivedAt: Int64?

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name }?.value }

    /// `{"count":N,"pushes":[…]}` from `/pushes` or `/pushes/wait`.
    static func list(from body: [UInt8]) throws -> [CapturedPush] {
        guard case .object(let root) = try JSONParser.parse(body, maximumDepth: 64),
              case .array(let pushes)? = root["pushes"] else {
            throw ConformanceHTTP.Failure(description: "the mock's answer has no \"pushes\" list")
        }
        return try pushes.map(CapturedPush.init(record:))
    }

    init(record: JSONValue) throws {
        guard case .object(let object) = record else { throw ConformanceHTTP.Failure(description: "a capture record is not an object") }
        headers = []
        if case .array(let pairs)? = object["headers"] {
            for pair in pairs {
                if case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue, let value = parts[1].stringValue {
                    headers.append((name, value))
                }
            }
        }
        payload = []
        if case .object(let body)? = object["payload"], let raw = body["raw"]?.stringValue {
            if case .bool(true)? = body["base64"] {
                payload = Data(base64Encoded: raw).map(Array.init) ?? []
            } else {
                payload = Array(raw.utf8)
            }
        }
        guard case .integer(let status)? = object["status"] else { throw ConformanceHTTP.Failure(description: "a capture record has no status") }
        self.status = Int(status)
        reason = object["reason"]?.stringValue
        apnsID = object["apns_id"]?.stringValue
        deviceToken = object["device_token"]?.stringValue
        environment = object["env"]?.stringValue
        if case .integer(let value)? = object["expiration"] { expiration = value }
        collapseID = object["collapse_id"]?.stringValue
        if case .object(let token)? = object["token"] {
            tokenFingerprint = token["fingerprint"]?.stringValue
            if case .object(let claims)? = token["claims"], case .integer(let iat)? = claims["iat"] { issuedAt = iat }
        }
        if let time = object["time"]?.stringValue {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            receivedAt = formatter.date(from: time).map { Int64($0.timeIntervalSince1970) }
        }
    }
}
