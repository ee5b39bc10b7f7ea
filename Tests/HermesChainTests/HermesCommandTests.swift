import Foundation
import HermesAgent
import Testing

/// `push-agent` and `hermes-device`, the built commands, against the in-process chain.
@Suite(.timeLimit(.minutes(2))) struct HermesCommandTests {
    @Test func pushAgentRegistersFiresAndTheDeviceCommandReportsWhatTheAppDid() async throws {
        let chain = try await HermesChain.start()
        let store = chain.store.path
        let token = HermesChain.tokenA
        let registered = try await CommandRunner.run("push-agent", ["register", "--store", store, "--device-token", token])
        #expect(registered.status == 0)
        #expect(registered.output.contains("abab…abab") && !registered.output.contains(token), "the token is masked")

        let secret = ["HERMES_PUSH_SECRET": String(decoding: HermesChain.hmacSecret, as: UTF8.self)]
        let gateway = chain.gateway.url + "/push"
        let fired = try await CommandRunner.run("push-agent", [
            "fire", "--store", store, "--gateway", gateway, "--hook", "pre_approval_request", "--surface", "gateway",
            "--session", "sess-cli"], environment: secret)
        #expect(fired.status == 0, "\(fired.error)")
        #expect(fired.output.contains("send approval sess-cli to 1 device(s)"))
        #expect(fired.output.contains("delivered"))
        let dropped = try await CommandRunner.run("push-agent", [
            "fire", "--store", store, "--gateway", gateway, "--hook", "post_llm_call", "--session", "s", "--turn-seconds", "3"],
            environment: secret)
        #expect(dropped.status == 0 && dropped.output.contains("drop complete s: short_turn"))

        let device = try await CommandRunner.run("hermes-device", [
            "--control", chain.mock.controlURL, "--device-token", token, "--count", "1", "--timeout", "20", "--viewing", "sess-cli"])
        #expect(device.status == 0, "\(device.error)")
        #expect(device.output.contains("approval sess-cli: banner suppressed (viewing this session); tap -> open session sess-cli; badge 1"))
        await chain.stop()
    }

    @Test func usageErrorsExitTwoAndAnUnreachableGatewayExitsOne() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).json").path
        let badToken = try await CommandRunner.run("push-agent", ["register", "--store", store, "--device-token", "xyz"])
        #expect(badToken.status == 2 && badToken.error.hasPrefix("Error: --device-token"))
        let noAuth = try await CommandRunner.run("push-agent", ["test", "--gateway", "http://127.0.0.1:9/push", "--device-token", "abcd"])
        #expect(noAuth.status == 2 && noAuth.error.contains("--secret"))
        let unknown = try await CommandRunner.run("push-agent", ["launch"])
        #expect(unknown.status == 2)

        let down = try await CommandRunner.run("push-agent", [
            "test", "--gateway", "http://127.0.0.1:9/push", "--secret", "s", "--device-token", "abcd", "--attempts", "2"])
        #expect(down.status == 1)
        #expect(down.output.contains("failed: gateway unreachable") && down.output.contains("attempts 2"))
        let help = try await CommandRunner.run("push-agent", ["--help"])
        #expect(help.status == 0 && help.output.hasPrefix("OVERVIEW:"))
    }
}
