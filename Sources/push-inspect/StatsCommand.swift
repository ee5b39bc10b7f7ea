import CLISupport
import PushRules
import StrictJSON

/// `push-inspect stats`: counts by outcome, reason, topic and push type.
enum StatsCommand {
    static let parser = CommandLineParser(
        command: "push-inspect stats",
        overview: "Count captured pushes by outcome, reason, topic and push type.",
        usage: "push-inspect stats [--json] [FILTERS] [FILE... | --from URL [--wait N --timeout S]]",
        options: InspectOptions.input, acceptsPositional: true)

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        var feed = try InspectOptions.feed(arguments, follows: false, terminal: terminal)
        var total = 0
        var tables: [String: [String: Int]] = ["outcome": [:], "reason": [:], "topic": [:], "push_type": [:]]
        await feed.run { push in
            total += 1
            let outcome = push.result.map { $0.isAccepted ? "accepted" : "rejected" } ?? "unknown"
            tables["outcome", default: [:]][outcome, default: 0] += 1
            if let reason = push.result?.reason { tables["reason", default: [:]][reason, default: 0] += 1 }
            tables["topic", default: [:]][push.headers.topic ?? "(none)", default: 0] += 1
            tables["push_type", default: [:]][push.headers.pushType ?? "(none)", default: 0] += 1
        }
        let output = OutputBuffer()
        if arguments.has("json") {
            var members: [String: JSONValue] = ["pushes": .integer(Int64(total))]
            for (name, counts) in tables {
                members[name] = .object(counts.mapValues { .integer(Int64($0)) })
            }
            var text = TerminalText.jsonBytes(.object(members))
            text.append(UInt8(ascii: "\n"))
            if !arguments.has("quiet") { output.write(bytes: text) }
        } else if !arguments.has("quiet") {
            output.write("pushes: \(total)\n")
            for name in ["outcome", "reason", "topic", "push_type"] {
                guard let counts = tables[name], !counts.isEmpty else { continue }
                output.write("\nby \(name.replacingOccurrences(of: "_", with: " ")):\n")
                for (key, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                    output.write("  \(String(count).leftPadded(to: 9))  \(TerminalText.escaped(key))\n")
                }
            }
        }
        output.flush()
        return feed.inputErrors > 0 ? 2 : 0
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
