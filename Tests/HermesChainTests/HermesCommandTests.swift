import Foundation
import HermesAgent
import PushTestSupport
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

    /// Output that cannot be written (standard output on a full disk) fails the run with a
    /// message: help with 2, a result with 1, as a runtime failure; an error that cannot be
    /// written is dropped. None of them crashes.
    @Test func pushAgentOutputThatCannotBeWrittenFailsTheRunWithoutACrash() async throws {
        let pushAgent = CommandRunner.executable("push-agent").path
        let help = try await SpawnedProcess.runDetached(pushAgent, ["--help"], full: .output)
        #expect(help.status == 2 && help.stderr == "Error: cannot write the help to standard output: No space left on device\n",
                "\(help.status) \(help.stderr)")
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: store) }
        let registered = try await SpawnedProcess.runDetached(
            pushAgent, ["register", "--store", store, "--device-token", HermesChain.tokenA], full: .output)
        #expect(registered.status == 1 && registered.stderr == "Error: cannot write the result to standard output: No space left on device\n",
                "\(registered.status) \(registered.stderr)")
        let unknown = try await SpawnedProcess.runDetached(pushAgent, ["launch"], full: .error)
        #expect(unknown.status == 2)
    }

    /// A report hermes-device cannot write (standard output on a full disk) ends the run with
    /// 1 and a message; an error it cannot write is dropped. Neither crashes.
    @Test func hermesDeviceOutputThatCannotBeWrittenFailsTheRunWithoutACrash() async throws {
        let chain = try await HermesChain.start()
        let sent = try await CommandRunner.run("push-agent", [
            "test", "--gateway", chain.gateway.url + "/push", "--secret", String(decoding: HermesChain.hmacSecret, as: UTF8.self),
            "--device-token", HermesChain.tokenA])
        #expect(sent.status == 0, "\(sent.output)\(sent.error)")
        let hermesDevice = CommandRunner.executable("hermes-device").path
        let report = try await SpawnedProcess.runDetached(
            hermesDevice, ["--control", chain.mock.controlURL, "--device-token", HermesChain.tokenA, "--timeout", "20"], full: .output)
        #expect(report.status == 1, "\(report.stderr)")
        #expect(report.stderr == "Error: cannot write the report of push 1 to standard output: No space left on device\n")
        await chain.stop()

        let unreachable = try await SpawnedProcess.runDetached(
            hermesDevice, ["--control", "http://127.0.0.1:9", "--device-token", HermesChain.tokenA, "--timeout", "1"], full: .error)
        #expect(unreachable.status == 1)
    }
}
