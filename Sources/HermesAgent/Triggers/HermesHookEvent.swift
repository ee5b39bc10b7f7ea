/// One agent hook call, reduced to the few arguments push logic may read (contract §1):
/// the session id, and what decides whether the hook is a trigger at all. Message text,
/// tool arguments and every other hook argument never enter this type, so no content can
/// reach a push.
public enum HermesHookEvent: Sendable, Hashable {
    /// `pre_llm_call`: a turn starts; anchors the turn-duration gate.
    case preLLMCall(sessionID: String)
    /// `post_llm_call`: the turn's model call finished (the `complete` trigger).
    case postLLMCall(sessionID: String)
    /// `pre_tool_call` for `toolName` (the `clarify` trigger when it is `clarify`).
    case preToolCall(sessionID: String, toolName: String)
    /// `pre_approval_request` on `surface` (the `approval` trigger on the gateway surface).
    case preApprovalRequest(sessionID: String, surface: HermesApprovalSurface)
    /// `on_session_end` (the `error` trigger when neither completed nor interrupted).
    case onSessionEnd(sessionID: String, completed: Bool, interrupted: Bool)

    /// The hook names as the agent spells them.
    public static let hookNames = ["pre_llm_call", "post_llm_call", "pre_tool_call", "pre_approval_request", "on_session_end"]

    /// The session the hook is about.
    public var sessionID: String {
        switch self {
        case .preLLMCall(let id), .postLLMCall(let id), .preToolCall(let id, _), .preApprovalRequest(let id, _),
             .onSessionEnd(let id, _, _):
            id
        }
    }

    /// Builds an event from a hook name and its keyword arguments as strings (the form a
    /// shell or a bridge from the Python agent has), reading only `session_id`,
    /// `tool_name`, `surface`, `completed` and `interrupted`.
    ///
    /// - Returns: nil for hooks push logic does not listen to.
    /// - Throws: ``HermesHookError`` when an argument the hook needs is missing or malformed.
    public init?(hookName: String, arguments: [String: String]) throws(HermesHookError) {
        func required(_ name: String) throws(HermesHookError) -> String {
            guard let value = arguments[name], !value.isEmpty else { throw .missingArgument(hook: hookName, name) }
            return value
        }
        func flag(_ name: String) throws(HermesHookError) -> Bool {
            switch arguments[name]?.lowercased() {
            case "true", "1", "yes": return true
            case nil, "false", "0", "no", "none", "": return false
            case let other?: throw .invalidArgument(hook: hookName, name, other)
            }
        }
        switch hookName {
        case "pre_llm_call": self = .preLLMCall(sessionID: try required("session_id"))
        case "post_llm_call": self = .postLLMCall(sessionID: try required("session_id"))
        case "pre_tool_call": self = .preToolCall(sessionID: try required("session_id"), toolName: try required("tool_name"))
        case "pre_approval_request":
            self = .preApprovalRequest(sessionID: try required("session_id"),
                                       surface: HermesApprovalSurface(rawValue: arguments["surface"] ?? ""))
        case "on_session_end":
            self = .onSessionEnd(sessionID: try required("session_id"), completed: try flag("completed"),
                                 interrupted: try flag("interrupted"))
        default: return nil
        }
    }
}

/// Why a hook call could not be read.
public enum HermesHookError: Error, Sendable, Hashable, CustomStringConvertible {
    case missingArgument(hook: String, String)
    case invalidArgument(hook: String, String, String)

    public var description: String {
        switch self {
        case .missingArgument(let hook, let name): "\(hook) needs the argument \(name)"
        case .invalidArgument(let hook, let name, let value): "\(hook): \(name) must be true or false, not \"\(value)\""
        }
    }
}
