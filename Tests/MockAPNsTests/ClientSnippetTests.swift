import Foundation
import PushTestSupport
import Testing

/// docs/clients.md's Python snippets, run as the doc shows them (from the checkout, the
/// port in `APNS_MOCK_PORT`) against the built `apns-mock`; and the doc's claims about the
/// test certificate, checked with openssl and curl.
@Suite(.timeLimit(.minutes(3)))
struct ClientSnippetTests {
    static let root = ApnsMockCommandTests.root.path
    static let doc = root + "/docs/clients.md"

    /// A snippet file under examples/clients and the alert text it sends.
    struct Snippet: Sendable, CustomTestStringConvertible {
        var file: String
        var alert: String
        var testDescription: String { file }
    }

    static let snippets = [
        Snippet(file: "examples/clients/aioapns_push.py", alert: "hello from aioapns"),
        Snippet(file: "examples/clients/kalyke_push.py", alert: "hello from kalyke"),
        Snippet(file: "examples/clients/apns2_push.py", alert: "hello from PyAPNs2"),
    ]

    /// What the mock saw while a snippet ran.
    struct Run: Sendable {
        var snippet: SpawnedProcess.Result
        var wait: String
    }

    @Test(arguments: snippets)
    func theSnippetSendsAPushTheMockCaptures(_ snippet: Snippet) async throws {
        let run = try await onThread { () throws -> Run in
            let mock = try ApnsMockCommandTests.RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"])
            defer { _ = mock.stop() }
            guard let production = mock.urls["production"], let port = production.split(separator: ":").last,
                  let control = mock.urls["control"] else {
                throw ApnsMockCommandTests.CommandFailure(output: "no URLs in the banner: \(mock.urls)")
            }
            // As the doc runs it: from the checkout, whose certs/ the snippet names.
            let python = try SpawnedProcess.run(
                "/bin/sh", ["-c", "cd \"$0\" && exec python3 \"$1\"", Self.root, snippet.file],
                environment: ["APNS_MOCK_PORT": String(port)], timeout: 60)
            let wait = try ApnsMockCommandTests.run("curl", ["-s", "\(control)/pushes/wait?count=1&timeout=10"])
            return Run(snippet: python, wait: wait.output)
        }
        #expect(run.snippet.status == 0, "\(run.snippet.stdout)\(run.snippet.stderr)")
        let body = try #require(try JSONSerialization.jsonObject(with: Data(run.wait.utf8)) as? [String: Any], "\(run.wait)")
        #expect(body["satisfied"] as? Bool == true, "\(run.wait)")
        let pushes = try #require(body["pushes"] as? [[String: Any]], "\(run.wait)")
        #expect(pushes.count == 1, "one push, not a retry: \(run.wait)")
        let push = try #require(pushes.first)
        #expect(push["status"] as? Int == 200, "\(push)")
        #expect(push["env"] as? String == "production")
        #expect(push["topic"] as? String == "com.example.app")
        #expect(push["device_token"] as? String == ApnsMockCommandTests.device)
        #expect(push["key_id"] as? String == "ABC123DEFG")
        let payload = try #require(push["payload"] as? [String: Any], "\(push)")
        let parsed = try #require(payload["parsed"] as? [String: Any], "\(payload)")
        #expect((parsed["aps"] as? [String: Any])?["alert"] as? String == snippet.alert, "\(parsed)")
    }

    /// The doc shows each snippet file whole, so what a reader copies is what ran above.
    @Test(arguments: snippets)
    func theDocShowsTheSnippetFileWhole(_ snippet: Snippet) throws {
        let doc = try String(contentsOfFile: Self.doc, encoding: .utf8)
        let file = try String(contentsOfFile: Self.root + "/" + snippet.file, encoding: .utf8)
        // Booleans first: a failed expectation on `doc.contains` would print the whole page.
        let shown = doc.contains("```python\n" + file + "```\n"), run = doc.contains("python3 \(snippet.file)")
        #expect(shown, "docs/clients.md does not show \(snippet.file) as it is")
        #expect(run, "docs/clients.md does not say how to run \(snippet.file)")
    }

    /// The names the doc says the test certificate covers are openssl's reading of it.
    @Test func theDocListsTheServerCertificatesNames() throws {
        let result = try ApnsMockCommandTests.run(
            "openssl", ["x509", "-in", Self.root + "/certs/server.pem", "-noout", "-ext", "subjectAltName"])
        #expect(result.status == 0, "\(result.output)")
        let names = try #require(result.output.split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) })
        #expect(names.contains("DNS:api.push.apple.com") && names.contains("DNS:api.sandbox.push.apple.com")
                && names.contains("DNS:api.development.push.apple.com"), "\(names)")
        let doc = try String(contentsOfFile: Self.doc, encoding: .utf8)
        let quoted = doc.contains(names)
        #expect(quoted, "docs/clients.md does not quote openssl's list: \(names)")
    }

    /// A client that keeps Apple's host names, resolved to the mock (curl's `--resolve`, as a
    /// hosts entry would), verifies the mock with certs/ca.pem alone and is answered.
    @Test func applesHostNamesResolvedToTheMockVerifyWithTheTestCA() async throws {
        let answers = try await onThread { () throws -> [String] in
            let mock = try ApnsMockCommandTests.RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-sandbox-port", "0", "--channel-port", "0"])
            defer { _ = mock.stop() }
            guard let production = mock.urls["production"], let sandbox = mock.urls["sandbox"],
                  let productionPort = production.split(separator: ":").last, let sandboxPort = sandbox.split(separator: ":").last else {
                throw ApnsMockCommandTests.CommandFailure(output: "no URLs in the banner: \(mock.urls)")
            }
            let token = try ApnsMockCommandTests.pyjwtToken()
            let hosts = [("api.push.apple.com", productionPort), ("api.sandbox.push.apple.com", sandboxPort),
                         ("api.development.push.apple.com", sandboxPort)]
            return try hosts.map { host, port in
                try ApnsMockCommandTests.run("curl", [
                    "-s", "--http2", "--resolve", "\(host):\(port):127.0.0.1", "--cacert", Self.root + "/certs/ca.pem",
                    "-H", "authorization: bearer \(token)", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert",
                    "-d", #"{"aps":{"alert":"hi"}}"#, "-w", "\(host) %{http_code}",
                    "https://\(host):\(port)/3/device/\(ApnsMockCommandTests.device)",
                ]).output
            }
        }
        #expect(answers == ["api.push.apple.com 200", "api.sandbox.push.apple.com 200", "api.development.push.apple.com 200"])
    }
}
