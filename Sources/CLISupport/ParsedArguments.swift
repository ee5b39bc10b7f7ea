/// Options and positional arguments as parsed, with typed accessors that fail clearly.
public struct ParsedArguments: Sendable {
    /// Values per option name, in the order given.
    public private(set) var values: [String: [String]] = [:]
    /// Flags that were given.
    public private(set) var flags: Set<String> = []
    /// Arguments that are not options.
    public private(set) var positional: [String] = []
    /// The environment variable each option taken from the environment came from.
    public private(set) var variables: [String: String] = [:]

    mutating func add(value: String, for name: String, from variable: String? = nil) {
        values[name, default: []].append(value)
        if let variable { variables[name] = variable }
    }
    mutating func add(flag name: String, from variable: String? = nil) {
        flags.insert(name)
        if let variable { variables[name] = variable }
    }
    mutating func add(positional argument: String) { positional.append(argument) }

    /// How a message names where `name` was given: `--name`, or the variable it came from.
    public func origin(of name: String) -> String { variables[name] ?? "--\(name)" }

    /// Whether the flag `--name` was given.
    public func has(_ name: String) -> Bool { flags.contains(name) }

    /// The last value of `--name`, or nil.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value of a repeatable `--name`.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of `--name` as an integer in `range`, or nil when absent.
    ///
    /// - Throws: `CommandLineError` naming the option and the range when it is not one.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(CommandLineError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CommandLineError("\(origin(of: name)) expects an integer from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// The value of `--name` as a number of seconds in `range`, such as `30` or `0.5`, to the
    /// millisecond; nil when absent.
    ///
    /// - Throws: `CommandLineError` naming the option and the range when it is not one.
    public func seconds(_ name: String, in range: ClosedRange<Double>) throws(CommandLineError) -> Duration? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw CommandLineError("--\(name) expects a number of seconds from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return .milliseconds(Int64((number * 1000).rounded()))
    }

    /// The value of `--name` as a log level (`trace` … `critical`), or nil when absent.
    ///
    /// - Throws: `CommandLineError` naming the option and the levels when it is not one.
    public func logLevel(_ name: String = "log-level") throws(CommandLineError) -> Logger.Level? {
        guard let text = value(name) else { return nil }
        guard let level = Logger.Level(rawValue: text) else {
            throw CommandLineError("\(origin(of: name)) expects one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), got '\(text)'")
        }
        return level
    }
}
