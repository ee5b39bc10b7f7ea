import HermesContract

/// Which hook events become which push (contract §1):
///
/// | type | hook | rule |
/// |---|---|---|
/// | approval | `pre_approval_request` | only on the gateway surface |
/// | clarify | `pre_tool_call` | only for the tool `clarify` |
/// | complete | `post_llm_call` | (duration and dedup gates are the policy's) |
/// | error | `on_session_end` | only when neither completed nor interrupted |
public enum HermesTriggerMapping {
    /// The tool whose call asks the user a question.
    public static let clarifyToolName = "clarify"

    /// The push type `event` triggers, or nil.
    public static func pushType(for event: HermesHookEvent) -> HermesPushType? {
        switch event {
        case .preApprovalRequest(_, let surface): surface == .gateway ? .approval : nil
        case .preToolCall(_, let tool): tool == clarifyToolName ? .clarify : nil
        case .postLLMCall: .complete
        case .onSessionEnd(_, let completed, let interrupted): !completed && !interrupted ? .error : nil
        case .preLLMCall: nil
        }
    }
}
