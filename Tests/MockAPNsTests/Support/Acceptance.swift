import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import PushTestSupport

/// Shared pieces of the acceptance tests: the test certificates, provider tokens, clients
/// (with or without a client certificate) and push requests.
enum Acceptance {
    static let certs = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs").path
    static let deviceToken = String(repeating: "ab", count: 32)
    static let topic = MockConfiguration.defaultBundleID
    static let teamID = MockConfiguration.defaultTeamID
    static let alertBody = #"{"aps":{"alert":"hi"}}"#

    /// A provider token signed with `certs/AuthKey_<keyFile>.p8` (by default the key of `keyID`).
    static func providerToken(
        keyID: String = "ABC123DEFG", keyFile: String? = nil, teamID: String = teamID, issuedAt: Date = Date()
    ) throws -> String {
        let key = try ES256PrivateKey(contentsOfFile: "\(certs)/AuthKey_\(keyFile ?? keyID).p8")
        return try JWTSigner(key: key, keyID: keyID).makeProviderToken(teamID: teamID, issuedAt: issuedAt)
    }

    /// Host and port of `http(s)://host:port`.
    static func address(of url: String) -> (host: String, port: Int) {
        let address = url.split(separator: "/").last.map(String.init) ?? ""
        let colon = address.lastIndex(of: ":") ?? address.endIndex
        return (String(address[..<colon]), Int(address[address.index(after: colon)...]) ?? 0)
    }

    /// A client for one of the mock's listeners; `identity` is a client certificate and key (PEM paths).
    static func client(for url: String, trust: String?, identity: (certificate: String, key: String)? = nil) throws -> HTTP2Client {
        let (host, port) = address(of: url)
        var tls = trust.map { TLSConfiguration.makeClientConfiguration(trustRootsPath: $0) }
        if let identity {
            tls?.certificateChainPath = identity.certificate
            tls?.privateKeyPath = identity.key
        }
        var configuration = HTTP2ClientConfiguration(host: host, port: port, tls: tls)
        configuration.serverName = "localhost"
        configuration.requestTimeout = .seconds(20)
        return try HTTP2Client(configuration: configuration)
    }

    static func push(
        token: String?, topic: String? = topic, device: String = deviceToken, body: String = alertBody,
        pushType: String = "alert", method: String = "POST", path: String? = nil, extra: [(String, String)] = []
    ) -> HTTPClientRequest {
        var headers: HTTPHeaders = ["apns-push-type": pushType]
        if let topic { headers.add(name: "apns-topic", value: topic) }
        if let token { headers.add(name: "authorization", value: "bearer \(token)") }
        for (name, value) in extra { headers.add(name: name, value: value) }
        return HTTPClientRequest(method: method, path: path ?? "/3/device/\(device)", headers: headers, body: Array(body.utf8))
    }

    /// Sends one valid push on a fresh connection and returns its status.
    static func freshPushStatus(_ mock: MockAPNsServer) async throws -> Int {
        let client = try client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        do {
            let response = try await client.send(push(token: try providerToken()))
            await client.close()
            return response.status
        } catch {
            await client.close()
            throw error
        }
    }

    /// Polls until the transport counts no open streams (or ``pollUntil(timeout:_:)``'s bound
    /// passes); returns the last count.
    static func settledOpenStreams(_ mock: MockAPNsServer) async throws -> Int {
        _ = await pollUntil { mock.transportMetrics.openStreams == 0 }
        return mock.transportMetrics.openStreams
    }
}

/// Client certificates made on the fly with the openssl CLI, signed by the test CA.
enum TestCertificates {
    /// Issues a client certificate with `subject` and extra extension lines; returns (certificate, key) paths
    /// in `directory`. Blocking: call through `onThread`.
    static func issue(_ name: String, subject: String, extensions: [String], in directory: String) throws -> (certificate: String, key: String) {
        try TestCertificateIssuer.issue(
            name, subject: subject, extensions: extensions, caCertificate: "\(Acceptance.certs)/ca.pem",
            caKey: "\(Acceptance.certs)/ca.key", in: directory)
    }

    static func temporaryDirectory() throws -> String {
        try TestCertificateIssuer.temporaryDirectory()
    }
}
