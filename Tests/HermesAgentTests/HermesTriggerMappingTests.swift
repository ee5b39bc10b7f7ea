import HermesAgent
import HermesContract
import Testing

@Suite struct HermesTriggerMappingTests {
    @Test func eachHookMapsToItsType() {
        #expect(HermesTriggerMapping.pushType(for: .preApprovalRequest(sessionID: "s", surface: .gateway)) == .approval)
        #expect(HermesTriggerMapping.pushType(for: .preToolCall(sessionID: "s", toolName: "clarify")) == .clarify)
        #expect(HermesTriggerMapping.pushType(for: .postLLMCall(sessionID: "s")) == .complete)
        #expect(HermesTriggerMapping.pushType(for: .onSessionEnd(sessionID: "s", completed: false, interrupted: false)) == .error)
        #expect(HermesTriggerMapping.pushType(for: .preLLMCall(sessionID: "s")) == nil)
    }

    @Test func approvalOnlyFromTheGatewaySurface() {
        #expect(HermesTriggerMapping.pushType(for: .preApprovalRequest(sessionID: "s", surface: .cli)) == nil)
        #expect(HermesTriggerMapping.pushType(for: .preApprovalRequest(sessionID: "s", surface: HermesApprovalSurface(rawValue: ""))) == nil)
    }

    @Test(arguments: ["terminal", "web_search", "Clarify", "clarify_x", ""])
    func onlyTheClarifyToolTriggers(tool: String) {
        #expect(HermesTriggerMapping.pushType(for: .preToolCall(sessionID: "s", toolName: tool)) == nil)
    }

    @Test func errorOnlyWhenNeitherCompletedNorInterrupted() {
        #expect(HermesTriggerMapping.pushType(for: .onSessionEnd(sessionID: "s", completed: true, interrupted: false)) == nil)
        #expect(HermesTriggerMapping.pushType(for: .onSessionEnd(sessionID: "s", completed: false, interrupted: true)) == nil)
        #expect(HermesTriggerMapping.pushType(for: .onSessionEnd(sessionID: "s", completed: true, interrupted: true)) == nil)
    }

    @Test func hookArgumentsAreReadForTheSessionOnlyNeverForContent() throws {
        let event = try HermesHookEvent(hookName: "post_llm_call", arguments: [
            "session_id": "sess-1", "user_message": "my password is hunter2", "assistant_response": "rm -rf /",
        ])
        #expect(event == .postLLMCall(sessionID: "sess-1"))
        let tool = try HermesHookEvent(hookName: "pre_tool_call", arguments: [
            "session_id": "sess-1", "tool_name": "clarify", "args": "{\"question\":\"secret?\"}",
        ])
        #expect(tool == .preToolCall(sessionID: "sess-1", toolName: "clarify"))
        // The event type has no room for anything else: its description is the session id and routing fields.
        #expect(!String(describing: event).contains("hunter2"))
    }

    @Test func sessionEndFlagsParseAndMissingSessionIsAnError() throws {
        #expect(try HermesHookEvent(hookName: "on_session_end", arguments: ["session_id": "s", "completed": "False", "interrupted": "false"])
                == .onSessionEnd(sessionID: "s", completed: false, interrupted: false))
        #expect(try HermesHookEvent(hookName: "on_session_end", arguments: ["session_id": "s", "completed": "True"])
                == .onSessionEnd(sessionID: "s", completed: true, interrupted: false))
        #expect(throws: HermesHookError.invalidArgument(hook: "on_session_end", "completed", "maybe")) {
            try HermesHookEvent(hookName: "on_session_end", arguments: ["session_id": "s", "completed": "maybe"])
        }
        #expect(throws: HermesHookError.missingArgument(hook: "post_llm_call", "session_id")) {
            try HermesHookEvent(hookName: "post_llm_call", arguments: [:])
        }
        #expect(try HermesHookEvent(hookName: "on_tool_result", arguments: ["session_id": "s"]) == nil)
    }
}
