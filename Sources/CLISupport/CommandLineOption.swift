/// One option a command accepts.
public struct CommandLineOption: Sendable, Hashable {
    /// Long name without dashes, such as `port`.
    public var name: String
    /// What the value looks like in help, such as `N` or `FILE`; nil for a flag.
    public var valueName: String?
    /// One line of help.
    public var help: String
    /// Whether it may be given more than once.
    public var isRepeatable: Bool

    /// An option that takes a value: `--name VALUE`.
    public static func value(_ name: String, _ valueName: String, help: String, repeatable: Bool = false) -> CommandLineOption {
        CommandLineOption(name: name, valueName: valueName, help: help, isRepeatable: repeatable)
    }

    /// A flag without a value: `--name`.
    public static func flag(_ name: String, help: String) -> CommandLineOption {
        CommandLineOption(name: name, valueName: nil, help: help, isRepeatable: false)
    }
}
