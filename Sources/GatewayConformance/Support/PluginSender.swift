import HermesContract
import JWTVerify

/// Sends pushes the way the public plugin does: compact JSON bodies, the HMAC over the
/// canonical string, or a capability from `/register` (re-registering once after a 403).
struct PluginSender: Sendable {
    let configuration: ConformanceConfiguration
    let http: ConformanceHTTP

    /// A request for `type` about `session` to `token`, not yet authorized.
    func request(_ type: HermesPushType, token: String, session: String) -> HermesPushRequest {
        HermesPushRequest(deviceToken: token, environment: configuration.environment, type: type, sessionID: session)
    }

    /// `request` with the configured credentials: its HMAC, or a capability fresh from `/register`.
    func authorized(_ request: HermesPushRequest) async throws -> HermesPushRequest {
        var request = request
        switch configuration.credentials {
        case .hmac(let secret): request.hmac = try Self.hexHMAC(secret, request.canonicalBytes)
        case .capability: request.capability = try await register(request.deviceToken)
        }
        return request
    }

    /// Authorizes `request` with the configured credentials and posts it.
    func send(_ request: HermesPushRequest) async throws -> ConformanceHTTP.Answer {
        var request = try await authorized(request)
        let answer = try await post(request)
        guard case .capability = configuration.credentials, answer.status == 403 else { return answer }
        request.capability = try await register(request.deviceToken)
        return try await post(request)
    }

    /// Posts `request` exactly as it is (tests of refusals set their own credentials).
    ///
    /// - Parameter timeout: gives up on an answer after this long instead of the usual 30 s.
    func post(_ request: HermesPushRequest, timeout: Duration? = nil) async throws -> ConformanceHTTP.Answer {
        try await http.send("POST", configuration.pushURL, json: request.encodedBody(), timeout: timeout)
    }

    func register(_ token: String) async throws -> String {
        let answer = try await http.send("POST", configuration.registerURL, json: HermesRegistration.requestBody(deviceToken: token))
        guard answer.status == 200 else {
            throw ConformanceHTTP.Failure(description: "POST /register answered \(answer.status): \(answer.text)")
        }
        do {
            return try HermesRegistration.capability(fromResponseBody: answer.body)
        } catch {
            throw ConformanceHTTP.Failure(description: "POST /register: \(error)")
        }
    }

    static func hexHMAC(_ secret: [UInt8], _ message: [UInt8]) throws -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in try HMACSHA256.authenticationCode(for: message, using: secret) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A random 64-digit token, so each check's pushes are its own at the mock.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        return String((0..<64).map { _ in digits[Int(generator.next() % 16)] })
    }

    /// A random session id matching the contract's pattern.
    static func randomSession(_ label: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return "conf_\(label)_\(String(generator.next() % 1_000_000_000, radix: 36))"
    }
}
