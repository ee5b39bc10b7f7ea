import APNsCapture
import APNsCore
import CLISupport
import Foundation
import StrictJSON

/// `push-inspect delivery`: the delivery events of a capture file (`apns-mock --delivery
/// --capture FILE`): what became of each push after its 200, with times.
enum DeliveryCommand {
    static let parser = CommandLineParser(
        command: "push-inspect delivery",
        overview: "Show what became of accepted pushes: the delivery events (delivered, stored, discarded and why, "
            + "replaced on screen) that apns-mock --delivery writes to its capture file.",
        usage: "push-inspect delivery [--json] [--apns-id ID] [--unique-id ID] [--device-token HEX] FILE...",
        options: [
            .value("apns-id", "ID", help: "Only the events of the push answered with this apns-id."),
            .value("unique-id", "ID", help: "Only the events of the push answered with this apns-unique-id."),
            .value("device-token", "HEX", help: "Only the events of this device's pushes."),
            .flag("json", help: "One JSON object per event instead of the table."),
        ],
        acceptsPositional: true)

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        guard !arguments.positional.isEmpty else { throw CommandLineError("name a capture file") }
        let token = try arguments.value("device-token").map { (text) throws(CommandLineError) in
            guard let token = DeviceToken(text) else { throw CommandLineError("--device-token: expected hex digits, found \"\(text)\"") }
            return token
        }
        let apnsID = arguments.value("apns-id"), uniqueID = arguments.value("unique-id"), json = arguments.has("json")
        let output = OutputBuffer()
        if !json { output.write(["SEQ", "TIME", "APNS-ID", "TOKEN", "STATE", "WHY", "BY"].joined(separator: "  ") + "\n") }
        var matched = 0, damaged = 0
        for path in arguments.positional {
            let reader: CaptureFileReader
            do {
                reader = try CaptureFileReader(path: path)
            } catch {
                terminal.err("Error: \(error)\n")
                return 2
            }
            reader.onOtherKindLine = { line in
                guard let event = try? CaptureDeliveryEvent(decoding: line) else {
                    damaged += 1
                    return
                }
                guard apnsID.map({ $0 == event.apnsID }) ?? true, uniqueID.map({ $0 == event.uniqueID }) ?? true,
                      token.map({ $0 == event.deviceToken }) ?? true else { return }
                matched += 1
                output.write(json ? jsonLine(event) : row(event))
            }
            do {
                while try reader.next() != nil, !Task.isCancelled {}
            } catch {
                terminal.err("Error: \(error)\n")
                return 2
            }
        }
        output.flush()
        if damaged > 0 { terminal.err("warning: \(damaged) delivery line(s) could not be read\n") }
        return matched > 0 ? 0 : 1
    }

    private static func row(_ event: CaptureDeliveryEvent) -> String {
        [String(event.sequence), CaptureTimestamp.string(microseconds: event.timeMicroseconds), TerminalText.escaped(event.apnsID),
         event.deviceToken.masked, event.state, event.why ?? "-", event.by.map(TerminalText.escaped) ?? "-"]
            .joined(separator: "  ") + "\n"
    }

    private static func jsonLine(_ event: CaptureDeliveryEvent) -> String {
        var bytes = event.encodedLine()
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self) + "\n"
    }
}
