import Foundation
import MockAPNs
import PushTestSupport
import Testing

/// `apns-mock --policy` and `--control-allowed-host`, from flags, variables and the
/// configuration file, checked with curl against the running command.
@Suite(.timeLimit(.minutes(2)))
struct ApnsMockControlOptionsTests {
    typealias Command = ApnsMockCommandTests

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("control-options-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The policy named by `--policy` (or `APNS_MOCK_POLICY`) is offered by `GET /profiles`;
    /// `APNS_MOCK_CONTROL_ALLOWED_HOST` names the hosts a proxy reaches the API by.
    @Test func thePolicyAndTheAllowedHostsComeFromFlagsAndVariables() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let policy = folder.appendingPathComponent("acme.json")
        try Data(#"{"name":"acme","required_keys":["acme_id"]}"#.utf8).write(to: policy)
        let seen = try await onThread { () throws -> (profiles: String, proxy: String, other: String, status: Int32) in
            let mock = try Command.RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0"], environment: [
                "APNS_MOCK_POLICY": policy.path, "APNS_MOCK_CONTROL_ALLOWED_HOST": "apns-mock, gateway.test",
            ])
            guard let control = mock.urls["control"] else { return ("no control URL: \(mock.urls)", "", "", mock.stop()) }
            func curl(_ host: String) throws -> String {
                try SpawnedProcess.run("curl", ["-s", "-H", "Host: \(host)", "-w", " %{http_code}", "\(control)/profiles"], timeout: 30).stdout
            }
            return (try curl("localhost"), try curl("gateway.test:2199"), try curl("other.test"), mock.stop())
        }
        #expect(seen.profiles.contains(#"{"description":"The policy file given to the mock (--policy).","name":"acme"}]}"#), "\(seen.profiles)")
        #expect(seen.proxy.hasSuffix(" 200"), "\(seen.proxy)")
        #expect(seen.other.hasSuffix(" 421") && seen.other.contains("apns-mock, gateway.test, localhost"), "\(seen.other)")
        #expect(seen.status == 0)
    }

    /// A policy file that cannot be read, is not a policy, or takes a built-in profile's name
    /// stops the start with a usage error naming it, exit 2; so does an allowed host with a port.
    @Test func aBadPolicyOrAllowedHostIsAUsageError() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appendingPathComponent("broken.json"), apple = folder.appendingPathComponent("apple.json")
        try Data(#"{"name":"x","allowed_keyz":[]}"#.utf8).write(to: broken)
        try Data(#"{"name":"apple"}"#.utf8).write(to: apple)
        let cases: [([String], [String: String], String)] = [
            (["--policy", "/nonexistent/policy.json"], [:], "--policy: cannot read policy file '/nonexistent/policy.json'"),
            (["--policy", broken.path], [:], "--policy: policy file '\(broken.path)': "),
            ([], ["APNS_MOCK_POLICY": apple.path], #"APNS_MOCK_POLICY: policy file '\#(apple.path)': name: "apple" is the name of a built-in profile"#),
            (["--control-allowed-host", "apns-mock:2199"], [:], "server.control_allowed_hosts: expected a host name such as apns-mock"),
        ]
        for (arguments, environment, message) in cases {
            let result = try await SpawnedProcess.runDetached(
                Command.executable.path, arguments, environment: environment.merging(["APNS_MOCK_CERTS": Command.certs]) { $1 }, timeout: 30)
            #expect(result.status == 2, "\(arguments) \(environment): \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// The configuration file's `policy_file` (relative to the file) and
    /// `server.control_allowed_hosts`.
    @Test func theConfigurationFileNamesThePolicyAndTheAllowedHosts() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"{"name":"acme","required_keys":["acme_id"]}"#.utf8).write(to: folder.appendingPathComponent("acme.json"))
        let file = folder.appendingPathComponent("mock.json")
        try Data(#"{"policy_file":"acme.json","server":{"control_allowed_hosts":["apns-mock"]}}"#.utf8).write(to: file)
        let configuration = try MockConfiguration.load(path: file.path)
        #expect(configuration.policy?.name == "acme")
        #expect(configuration.server.controlAllowedHosts == ["apns-mock"])

        try Data(#"{"policy_file":"missing.json"}"#.utf8).write(to: file)
        #expect(throws: ConfigurationError.self) { try MockConfiguration.load(path: file.path) }
        try Data(#"{"server":{"control_allowed_hosts":["http://apns-mock"]}}"#.utf8).write(to: file)
        let error = #expect(throws: ConfigurationError.self) { try MockConfiguration.load(path: file.path) }
        #expect(error?.description.contains("server.control_allowed_hosts") == true, "\(String(describing: error))")
    }
}
