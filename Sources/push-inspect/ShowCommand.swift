import APNsCore
import CLISupport
import Foundation
import PushRules
import StrictJSON

/// `push-inspect show`: a readable table of captured pushes.
enum ShowCommand {
    static let parser = CommandLineParser(
        command: "push-inspect show",
        overview: "Show captured pushes as a table: seq, time, apns-id, device token, topic, type, environment, title and body, outcome.",
        usage: "push-inspect show [--json] [FILTERS] [FILE... | --from URL [--wait N --timeout S]] [--follow]",
        options: InspectOptions.followableInput, acceptsPositional: true)

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        var feed = try InspectOptions.feed(arguments, follows: true, terminal: terminal)
        let json = arguments.has("json"), quiet = arguments.has("quiet")
        let output = OutputBuffer()
        var count = 0
        let follow = feed.follow
        if json, !quiet { output.write("[") }
        if !json, !quiet {
            output.write(row(["SEQ", "TIME", "APNS-ID", "TOKEN", "TOPIC", "TYPE", "ENV", "TITLE / BODY", "OUTCOME"]) + "\n")
        }
        await feed.run { push in
            count += 1
            guard !quiet else { return }
            if json {
                var members: [String: JSONValue] = push.source.jsonMembers
                let keys = ["", "time", "", "device_token", "topic", "push_type", "", "alert", "outcome"]
                for (key, value) in zip(keys, columns(push, json: true)) where !key.isEmpty && !value.isEmpty {
                    members[key] = .string(value)
                }
                if let status = push.result?.status { members["status"] = .integer(Int64(status)) }
                if let reason = push.result?.reason { members["reason"] = .string(reason) }
                if push.result?.injected == true { members["injected"] = .bool(true) }
                var text: [UInt8] = count > 1 ? [UInt8(ascii: ",")] : []
                text += TerminalText.jsonBytes(.object(members))
                output.write(bytes: text)
            } else {
                var line = row(columns(push))
                if let result = push.result, !result.isAccepted { line = terminal.red(line) }
                output.write(line + "\n")
                if follow { output.flush() }
            }
        }
        if json, !quiet { output.write("]\n") }
        output.flush()
        return feed.inputErrors > 0 ? 2 : 0
    }

    /// Seq, time, apns-id, masked token, topic, type, environment, "title — body", outcome.
    /// For `--json`, which a program reads, the whole device token and an RFC 3339 time
    /// (`2026-11-30T10:00:00Z`).
    static func columns(_ push: PushInput, json: Bool = false) -> [String] {
        let time = push.sentAt.map(json ? formatRFC3339 : formatTime) ?? ""
        let token = json ? push.headers.deviceToken ?? "" : push.headers.deviceToken.flatMap { DeviceToken($0)?.masked } ?? ""
        var alert = ""
        switch push.payload?.value(atKeys: ["aps", "alert"]) {
        case .string(let body)?: alert = body
        case .object(let members)?:
            alert = [members["title"]?.stringValue, members["body"]?.stringValue].compactMap { $0 }.joined(separator: " — ")
        default: alert = push.payload == nil ? "(not JSON)" : ""
        }
        var outcome = push.result.map { $0.isAccepted ? "200 accepted" : "\($0.status) \($0.reason ?? "")" } ?? ""
        if push.result?.injected == true { outcome += " (injected)" }
        return [push.source.sequence.map(String.init) ?? "", time, push.source.apnsID ?? "", token, push.headers.topic ?? "",
                push.headers.pushType ?? "", push.source.environment ?? "", alert, outcome]
    }

    /// The columns each field takes on a terminal (``DisplayWidth``); the last is not cut.
    private static let widths = [6, 19, 36, 11, 24, 12, 10, 48, 0]

    /// One table row. Every field is escaped (``TerminalText/escaped(_:)``): titles,
    /// bodies, topics and reasons are the sender's text.
    static func row(_ fields: [String]) -> String {
        var line = ""
        for (field, width) in zip(fields, widths) {
            guard width > 0 else {
                line += TerminalText.escaped(field)
                break
            }
            let shown = shortened(field, toWidth: width)
            line += shown.text + String(repeating: " ", count: max(0, width - shown.width) + 2)
        }
        return line
    }

    /// `text` escaped, in at most `width` terminal columns, and the columns it takes. A
    /// longer one is cut after the escapes of as many whole characters of `text` as fit
    /// before a `…`: never inside an escape (leaving `\u00` or a lone `\`), nor inside a
    /// character. Columns are counted, not characters, because a CJK character or an emoji
    /// takes two and a combining accent none; so the cut may end a column short, where a
    /// wide character would straddle the edge, and the row pads it.
    static func shortened(_ text: String, toWidth width: Int) -> (text: String, width: Int) {
        let escaped = TerminalText.escaped(text)
        let escapedWidth = DisplayWidth.of(escaped)
        guard escapedWidth > width else { return (escaped, escapedWidth) }
        let room = width - DisplayWidth.of(ellipsis)
        var shown = ""
        var used = 0
        // By the pieces a terminal draws apart: a run of stray skin-tone modifiers is one
        // character but as many emoji on the screen (DisplayWidth.drawnPieces).
        pieces: for character in text {
            for drawn in DisplayWidth.drawnPieces(of: character) {
                let piece = TerminalText.escaped(drawn)
                let pieceWidth = DisplayWidth.of(piece)
                guard used + pieceWidth <= room else { break pieces }
                shown += piece
                used += pieceWidth
            }
        }
        return (shown + ellipsis, used + DisplayWidth.of(ellipsis))
    }

    private static let ellipsis = "…"

    /// `2026-11-30 10:00:00` in UTC.
    static func formatTime(_ seconds: Int64) -> String {
        formatTime(seconds, separator: " ", zone: "")
    }

    /// `2026-11-30T10:00:00Z`: RFC 3339 in UTC, to the whole second the push's time holds.
    static func formatRFC3339(_ seconds: Int64) -> String {
        formatTime(seconds, separator: "T", zone: "Z")
    }

    private static func formatTime(_ seconds: Int64, separator: String, zone: String) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))\(separator)"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))\(zone)"
    }
}
