import CLISupport
import Foundation
import HermesAgent
import Synchronization

extension Subcommand {
    /// `fire`: one hook event through mapping, gates and sender, like the plugin's hook.
    static func fire(_ arguments: ParsedArguments) async throws -> Int32 {
        let hook = try required(arguments, "hook")
        var hookArguments = ["session_id": try required(arguments, "session")]
        hookArguments["tool_name"] = arguments.value("tool")
        hookArguments["surface"] = arguments.value("surface")
        hookArguments["completed"] = arguments.has("completed") ? "true" : "false"
        hookArguments["interrupted"] = arguments.has("interrupted") ? "true" : "false"
        let event: HermesHookEvent
        do {
            guard let parsed = try HermesHookEvent(hookName: hook, arguments: hookArguments) else {
                throw CommandLineError("--hook must be one of " + HermesHookEvent.hookNames.joined(separator: ", "))
            }
            event = parsed
        } catch let error as HermesHookError {
            throw CommandLineError(error.description)
        }
        let turnSeconds = try arguments.integer("turn-seconds", in: 0...86_400)

        // A shell run is one process per event: the turn start the duration gate needs is
        // replayed from --turn-seconds on a clock set back that far.
        let offset = Mutex<TimeInterval>(-Double(turnSeconds ?? 0))
        let policy = HermesSuppressionPolicy(now: { Date().addingTimeInterval(offset.withLock { $0 }) })
        let presence = HermesViewedSessions()
        if arguments.has("viewing") { presence.clientOpened(sessionID: event.sessionID) }
        // One store instance for the gates and the sender, so a prune is seen by both.
        let devices = try store(arguments)
        let agent = HermesPushAgent(store: devices, sender: HermesGatewaySender(configuration: try gateway(arguments), store: devices),
                                    policy: policy, presence: presence)
        if turnSeconds != nil, event != .preLLMCall(sessionID: event.sessionID) {
            agent.handle(.preLLMCall(sessionID: event.sessionID))
        }
        offset.withLock { $0 = 0 }

        let decision = agent.handle(event)
        // The pushes go out even when the decision cannot be printed: a hook's event is not
        // dropped for its log. The lost output still fails the run, once they have.
        let decisionLine = switch decision {
        case .notATrigger: "not a trigger: \(hook)\n"
        case .send(let type, let session): "send \(type.rawValue) \(session) to \(agent.store.count) device(s)\n"
        case .drop(let type, let session, let reason): "drop \(type.rawValue) \(session): \(reason.rawValue)\n"
        }
        var lost: OutputWriteError?
        do throws(OutputWriteError) {
            try StandardStreams.writeOutput(decisionLine, naming: "the decision")
        } catch {
            lost = error
        }
        await agent.waitUntilIdle()
        if let lost { throw lost }
        for result in agent.results { try StandardStreams.writeOutput("\(result)\n", naming: "the results") }
        return exitCode(agent.results)
    }
}
