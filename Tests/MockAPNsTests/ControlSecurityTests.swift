import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// What keeps a browser tab on another site away from the control API: the host a request
/// names (DNS rebinding) and a JSON content type on every change (cross-site forms).
@Suite(.timeLimit(.minutes(3)))
struct ControlSecurityTests {
    typealias Server = MockAPNsServerTests

    static func body(_ response: HTTPClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    /// A PUT, POST or DELETE without `content-type: application/json` is a 415 that says what
    /// to send, and changes nothing; with it (parameters and case aside) it goes through.
    @Test func changesNeedAJSONContentType() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Server.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Server.client(for: mock.controlURL, trust: nil)
        let apns = try Server.client(for: mock.sandboxURL, trust: nil)
        #expect(try await apns.send(Server.push(token: try Server.providerToken())).status == 200)
        let device = #"[{"token":"\#(Server.deviceToken)","bundle_id":"com.example.app","environment":"sandbox","state":"unregistered"}]"#
        let fault = #"{"id":"down","action":{"type":"unavailable","reason":"ServiceUnavailable"}}"#
        let refused: [(String, String, String?, String)] = [
            ("PUT", "/devices", nil, device),
            ("POST", "/faults", "application/x-www-form-urlencoded", fault),
            ("POST", "/faults", "text/plain", fault),
            ("PUT", "/faults", "multipart/form-data; boundary=x", "[]"),
            ("DELETE", "/pushes", nil, ""),
            ("DELETE", "/faults", "application/jsonp", ""),
        ]
        for (method, path, type, payload) in refused {
            let headers: HTTPHeaders = type.map { ["content-type": $0] } ?? [:]
            let answer = try await control.send(HTTPClientRequest(method: method, path: path, headers: headers, body: Array(payload.utf8)))
            let found = type.map { #"content-type \"\#($0)\""# } ?? "no content-type"
            #expect(answer.status == 415 && Self.body(answer) == #"{"error":"\#(method) \#(path) changes the mock, so it needs "#
                + #"content-type: application/json (found \#(found)), even with no body"}"# + "\n", "\(method) \(path): \(Self.body(answer))")
        }
        #expect(mock.registry.devices.isEmpty && mock.faults.rules.isEmpty && mock.capture.count == 1, "a refused change changes nothing")
        #expect(try await control.send(HTTPClientRequest(path: "/pushes")).status == 200, "a GET needs no content type")

        let accepted = try await control.send(HTTPClientRequest(
            method: "POST", path: "/faults", headers: ["content-type": "Application/JSON; charset=utf-8"], body: Array(fault.utf8)))
        #expect(accepted.status == 201, "\(Self.body(accepted))")
        #expect(try await control.send(HTTPClientRequest.control("DELETE", path: "/pushes")).status == 204)
        #expect(mock.capture.count == 0)
        await control.close()
        await apns.close()
    }

    /// The API answers only hosts it serves, by name and port aside: `localhost`, IP
    /// addresses (a published port's `127.0.0.1:8199`), the bound address and the allowed
    /// names. A DNS-rebinding page's host (`evil.example`, resolved to 127.0.0.1) gets a 421,
    /// over HTTP/2's `:authority` and HTTP/1.1's `Host` alike, before the token is asked for.
    @Test func requestsNamingAnotherHostAreRefused() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Server.certs) {
            $0.server.tlsEnabled = false
            $0.server.controlAllowedHosts = ["apns-mock", "Docker."]
            $0.server.controlAccessToken = "control-token-for-host-tests-01"
        }
        defer { mock.stop() }
        let control = try Server.client(for: mock.controlURL, trust: nil)
        let bearer: HTTPHeaders = ["authorization": "Bearer control-token-for-host-tests-01"]
        let port = mock.controlURL.split(separator: ":").last.map(String.init) ?? ""
        for authority in ["localhost:\(port)", "LOCALHOST", "127.0.0.1:8199", "[::1]:8199", "127.0.0.1", "10.1.2.3:2199",
                          "apns-mock:2199", "docker", "DOCKER.:80"] {
            let answer = try await control.send(HTTPClientRequest(path: "/pushes", authority: authority, headers: bearer))
            #expect(answer.status == 200, "\(authority): \(Self.body(answer))")
        }
        for authority in ["evil.example:\(port)", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io", "apns-mock.evil.example"] {
            let answer = try await control.send(HTTPClientRequest(path: "/healthz", authority: authority))
            #expect(answer.status == 421, "\(authority): \(Self.body(answer))")
            #expect(Self.body(answer).contains("does not answer host \\\"\(authority)\\\": it answers IP addresses and 127.0.0.1, apns-mock, docker, localhost"),
                    "\(Self.body(answer))")
        }
        await control.close()

        let curl = try await onThread { () throws -> [String] in
            try ["evil.example:\(port)", "localhost:1"].map { host in
                try SpawnedProcess.run("curl", ["-s", "--http1.1", "-H", "Host: \(host)", "-w", " %{http_code}", "\(mock.controlURL)/healthz"],
                                       timeout: 30).stdout
            }
        }
        #expect(curl[0].hasSuffix(" 421") && curl[0].contains(#"does not answer host \"evil.example:"#), "\(curl[0])")
        #expect(curl[1] == #"{"status":"ok"}"# + "\n 200", "\(curl[1])")
    }

    /// The start-up warning is for a control API beyond loopback without a token.
    @Test func aControlAPIBeyondLoopbackWithoutATokenIsWarnedAbout() {
        var settings = MockServerSettings.makeDefault()
        for host in ["0.0.0.0", "::", "192.0.2.10", "fd00::1", "apns-mock.internal"] {
            settings.host = host
            settings.controlAccessToken = nil
            let warning = settings.controlExposureWarning(controlURL: "http://\(host):2199")
            #expect(warning?.hasPrefix("the control API listens on \(host) without an access token") == true, "\(host)")
            settings.controlAccessToken = "a-control-token-0123456789"
            #expect(settings.controlExposureWarning(controlURL: "") == nil, "\(host) with a token")
        }
        settings.controlAccessToken = nil
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "::ffff:127.0.0.1"] {
            settings.host = host
            #expect(settings.controlExposureWarning(controlURL: "") == nil, "\(host) is loopback")
        }
        for host in ["127.0.0.1.example", "1270.0.0.1", "127.0.0"] {
            settings.host = host
            #expect(settings.controlExposureWarning(controlURL: "") != nil, "\(host) is not loopback")
        }
    }
}
