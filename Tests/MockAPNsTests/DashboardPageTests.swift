import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// The dashboard's files as the control port serves them (the browser itself is driven in
/// DashboardTests).
@Suite(.timeLimit(.minutes(3)))
struct DashboardPageTests {
    static let files = [
        ("/", "text/html; charset=utf-8"), ("/dashboard/dashboard.js", "text/javascript; charset=utf-8"),
        ("/dashboard/render.js", "text/javascript; charset=utf-8"), ("/dashboard/dashboard.css", "text/css; charset=utf-8"),
    ]

    /// Each file with its type, `nosniff`, and a policy that allows only the page's own scripts
    /// and connections; served without the access token, while the API behind it needs it.
    @Test func filesComeWithTheirTypeAndAStrictPolicyWithoutTheToken() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.server.controlAccessToken = "a-control-token-of-some-length"
        }
        defer { mock.stop() }
        let control = try Acceptance.client(for: mock.controlURL, trust: nil)
        for (path, type) in Self.files {
            let answer = try await control.send(HTTPClientRequest(path: path))
            #expect(answer.status == 200 && answer.body.count > 500, "\(path)")
            #expect(answer.headers["content-type"] == type, "\(path)")
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(path)")
            let policy = answer.headers["content-security-policy"] ?? ""
            for directive in ["default-src 'self'", "script-src 'self';", "connect-src 'self'", "frame-ancestors 'none'", "require-trusted-types-for 'script'"] {
                #expect(policy.contains(directive), "\(path): \(policy)")
            }
            #expect(!policy.contains("unsafe"), "\(policy)")
        }
        #expect(try await control.send(HTTPClientRequest(path: "/pushes/live?timeout=0")).status == 401)
        #expect(try await control.send(HTTPClientRequest(path: "/dashboard/other.js")).status == 401)
        #expect(try await control.send(HTTPClientRequest(method: "POST", path: "/")).status == 401)
        await control.close()
    }

    /// The page's markup has no inline script, handler or style (the policy would refuse
    /// them), and its scripts never parse text as markup or code.
    @Test func thePageBuildsElementsAndNeverParsesText() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let control = try Acceptance.client(for: mock.controlURL, trust: nil)
        let html = String(decoding: try await control.send(HTTPClientRequest(path: "/")).body, as: UTF8.self)
        let scripts = html.components(separatedBy: "<script").dropFirst()
        #expect(scripts.count == 1 && scripts.allSatisfy { $0.hasPrefix(#" type="module" src="/dashboard/"#) && $0.contains("></script>") })
        #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil)
        #expect(html.range(of: #"\sstyle="#, options: .regularExpression) == nil)
        for path in ["/dashboard/dashboard.js", "/dashboard/render.js"] {
            let script = String(decoding: try await control.send(HTTPClientRequest(path: path)).body, as: UTF8.self)
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "http://", "https://"] {
                #expect(!script.contains(sink), "\(path) uses \(sink)")
            }
        }
        #expect(try await control.send(HTTPClientRequest(path: "/dashboard/missing.js")).status == 404)
        await control.close()
    }
}
