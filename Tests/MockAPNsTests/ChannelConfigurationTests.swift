import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// The channel management listeners' ports: Apple's by default, from the file, flags and
/// `APNS_MOCK_*` variables like the other ports, 0 for a free one, printed in the banner.
@Suite struct ChannelConfigurationTests {
    @Test func theDefaultsAreApplesPortsAndTheFileChangesThem() throws {
        let defaults = MockServerSettings.makeDefault()
        #expect(defaults.channelSandboxPort == 2195 && defaults.channelProductionPort == 2196)
        let json = try JSONParser.parse(Array(#"{"server":{"channel_sandbox_port":4301,"channel_production_port":0}}"#.utf8))
        let configuration = try MockConfiguration.decode(json, baseDirectory: nil)
        #expect(configuration.server.channelSandboxPort == 4301 && configuration.server.channelProductionPort == 0)
        guard case .object(let server) = configuration.serverJSON else { Issue.record("serverJSON is not an object"); return }
        #expect(server["channel_sandbox_port"] == .integer(4301))
        let clash = try JSONParser.parse(Array(#"{"server":{"control_port":4302,"channel_production_port":4302}}"#.utf8))
        #expect {
            try MockConfiguration.decode(clash, baseDirectory: nil)
        } throws: { "\($0)".contains("server.channel_production_port: port 4302 is already used by control_port") }
    }

    @Test func theFlagsAndVariablesSetThePortsAndTheBannerPrintsThem() async throws {
        let mock = try ApnsMockCommandTests.RunningMock(
            arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--channel-port", "0"],
            environment: ["APNS_MOCK_CHANNEL_SANDBOX_PORT": "0"])
        defer { _ = mock.stop() }
        let production = try #require(mock.urls["channels-production"])
        let sandbox = try #require(mock.urls["channels-sandbox"])
        #expect(production.hasPrefix("https://127.0.0.1:") && sandbox.hasPrefix("https://127.0.0.1:") && production != sandbox)
        #expect(!production.hasSuffix(":2196") && !sandbox.hasSuffix(":2195"), "port 0 picks a free port")
        // The listener answers as APNs' channel management does: no token, 403.
        let client = try Acceptance.client(for: sandbox, trust: "\(Acceptance.certs)/ca.pem")
        let answer = try await client.send(HTTPClientRequest(method: "GET", path: "/1/apps/com.example.app/all-channels"))
        await client.close()
        #expect(answer.status == 403 && String(decoding: answer.body, as: UTF8.self) == #"{"reason":"MissingProviderToken"}"#)
        // One log line per channel request, as per push.
        let logged = await pollUntil { mock.takeLog().contains { $0.contains("channel request rejected") } }
        let line = mock.takeLog().first { $0.contains("channel request rejected") } ?? ""
        #expect(logged && line.contains("channel.operation=list") && line.contains("channel.reason=MissingProviderToken"), "\(line)")
    }
}
