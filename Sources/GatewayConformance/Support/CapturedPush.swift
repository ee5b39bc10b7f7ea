import APNsCapture
import StrictJSON

/// The parts of a captured push the checks look at, from the mock's control API: the
/// records are decoded by APNsCapture, the one reader of the format (docs/capture-format.md).
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
        let results: [Result<CaptureRecord, CaptureDecodingError>]
        do {
            results = try CaptureRecord.decodeRecords(inArrayMember: "pushes", of: body)
        } catch {
            throw ConformanceHTTP.Failure(description: "the mock's answer has no \"pushes\" list: \(error)")
        }
        return try results.map { result in
            do {
                return CapturedPush(try result.get())
            } catch {
                throw ConformanceHTTP.Failure(description: "a capture record does not decode: \(error)")
            }
        }
    }

    init(_ record: CaptureRecord) {
        headers = record.headers.fields.map { (name: $0.name, value: $0.value) }
        payload = record.payload
        status = record.outcome.status
        reason = record.outcome.reason?.wireValue
        apnsID = record.outcome.apnsID
        deviceToken = record.deviceToken?.hex
        environment = record.environment.rawValue
        expiration = record.expiration
        collapseID = record.collapseID
        tokenFingerprint = record.token?.fingerprint
        if case .object(let claims)? = record.token?.claims, case .integer(let iat)? = claims["iat"] { issuedAt = iat }
        receivedAt = record.receivedAtMicroseconds / 1_000_000
    }
}
