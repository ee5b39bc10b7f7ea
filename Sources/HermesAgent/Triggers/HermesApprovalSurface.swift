/// Where an approval is being asked: only the remote (gateway) surface pushes, because a
/// user at the terminal already sees the prompt.
public struct HermesApprovalSurface: RawRepresentable, Sendable, Hashable {
    /// The surface's name as the agent passes it.
    public var rawValue: String

    /// A surface by name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The messaging gateway: the user is away from the agent's terminal.
    public static let gateway = HermesApprovalSurface(rawValue: "gateway")
    /// The agent's own terminal.
    public static let cli = HermesApprovalSurface(rawValue: "cli")
}
