import APNsCapture
import APNsCore
import CLISupport
import Foundation
import MockAPNsControl
import StrictJSON

/// `push-inspect delivery`: what became of each push after its 200, with times: the delivery
/// events of a capture file (`apns-mock --delivery --capture FILE`), or the delivery log of a
/// running mock (`--from URL`).
enum DeliveryCommand {
    static let parser = CommandLineParser(
        command: "push-inspect delivery",
        overview: "Show what became of accepted pushes: the delivery events (delivered, stored, discarded and why, "
            + "replaced on screen) that apns-mock --delivery writes to its capture file, or that a running mock's "
            + "control API holds (--from).",
        usage: "push-inspect delivery [--json] [--apns-id ID] [--unique-id ID] [--device-token HEX] (FILE... | --from URL)",
        options: [
            .value("apns-id", "ID", help: "Only the events of the push answered with this apns-id."),
            .value("unique-id", "ID", help: "Only the events of the push answered with this apns-unique-id."),
            .value("device-token", "HEX", help: "Only the events of this device's pushes."),
            .value("from", "URL", help: "Read a running mock's delivery log from its control API (http://HOST:PORT) "
                + "instead of a capture file; needs --apns-id, --unique-id or --device-token."),
            .flag("json", help: "One JSON object per event instead of the table."),
        ],
        acceptsPositional: true)

    /// The events asked for: the filter options.
    struct Selection {
        var apnsID: String?
        var uniqueID: String?
        var deviceToken: DeviceToken?

        func matches(_ event: CaptureDeliveryEvent) -> Bool {
            (apnsID.map { $0 == event.apnsID } ?? true) && (uniqueID.map { $0 == event.uniqueID } ?? true)
                && (deviceToken.map { $0 == event.deviceToken } ?? true)
        }

        /// What the control API looks up; the other options then filter its answer.
        var lookup: DeliveryLookup? {
            if let apnsID { return .apnsID(apnsID) }
            if let uniqueID { return .uniqueID(uniqueID) }
            return deviceToken.map { .deviceToken($0) }
        }
    }

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        let token = try arguments.value("device-token").map { (text) throws(CommandLineError) in
            guard let token = DeviceToken(text) else { throw CommandLineError("--device-token: expected hex digits, found \"\(text)\"") }
            return token
        }
        let selection = Selection(apnsID: arguments.value("apns-id"), uniqueID: arguments.value("unique-id"), deviceToken: token)
        let json = arguments.has("json")
        let output = OutputBuffer()
        if !json { output.write(["SEQ", "TIME", "APNS-ID", "TOKEN", "STATE", "WHY", "BY"].joined(separator: "  ") + "\n") }
        let write = { (event: CaptureDeliveryEvent) in output.write(json ? jsonLine(event) : row(event)) }
        let written: Int
        if let url = arguments.value("from") {
            guard arguments.positional.isEmpty else {
                throw CommandLineError("give capture files or --from URL, not both")
            }
            let base = try ControlEndpoint.parse(url)
            guard let lookup = selection.lookup else {
                throw CommandLineError("--from needs --apns-id, --unique-id or --device-token: the control API looks "
                    + "the delivery log up by one of them")
            }
            let events: [CaptureDeliveryEvent]
            do {
                events = try await liveEvents(base, lookup).filter(selection.matches)
            } catch {
                terminal.err("Error: \(PushFeed.message(error))\n")
                return 2
            }
            events.forEach(write)
            written = events.count
        } else {
            guard !arguments.positional.isEmpty else { throw CommandLineError("name a capture file, or give --from URL") }
            // Streamed: a capture of millions of delivery lines is read in constant memory.
            guard let count = writeFileEvents(arguments.positional, selection, terminal: terminal, write) else { return 2 }
            written = count
        }
        output.flush()
        return written == 0 ? 1 : 0
    }

    /// Hands each matching event of the capture files to `write`, in file order, and returns
    /// how many; nil after an error it reported.
    private static func writeFileEvents(_ paths: [String], _ selection: Selection, terminal: Terminal,
                                        _ write: @escaping (CaptureDeliveryEvent) -> Void) -> Int? {
        var count = 0, damaged = 0
        for path in paths {
            let reader: CaptureFileReader
            do {
                reader = try CaptureFileReader(path: path)
            } catch {
                terminal.err("Error: \(error)\n")
                return nil
            }
            reader.onOtherKindLine = { line in
                guard let event = try? CaptureDeliveryEvent(decoding: line) else {
                    damaged += 1
                    return
                }
                if selection.matches(event) {
                    write(event)
                    count += 1
                }
            }
            do {
                while try reader.next() != nil, !Task.isCancelled {}
            } catch {
                terminal.err("Error: \(error)\n")
                return nil
            }
        }
        if damaged > 0 { terminal.err("warning: \(damaged) delivery line(s) could not be read\n") }
        return count
    }

    /// The events of the records `lookup` names, oldest first (records in the log's order
    /// where times are equal).
    private static func liveEvents(_ base: ControlBaseURL, _ lookup: DeliveryLookup) async throws(MockControlError) -> [CaptureDeliveryEvent] {
        let control = try MockControlClient(baseURL: base)
        let records: [MockDeliveryRecord]
        do {
            records = try await control.deliveryRecords(lookup)
        } catch {
            await control.close()
            throw error
        }
        await control.close()
        return records.flatMap(\.events).enumerated()
            .sorted { ($0.element.timeMicroseconds, $0.offset) < ($1.element.timeMicroseconds, $1.offset) }
            .map(\.element)
    }

    /// One table row; a live mock's events have no sequence number (`-`).
    private static func row(_ event: CaptureDeliveryEvent) -> String {
        [event.sequence == 0 ? "-" : String(event.sequence), CaptureTimestamp.string(microseconds: event.timeMicroseconds),
         TerminalText.escaped(event.apnsID), event.deviceToken.masked, event.state, event.why ?? "-",
         event.by.map(TerminalText.escaped) ?? "-"]
            .joined(separator: "  ") + "\n"
    }

    /// The event as its capture line; a live mock's, which have no sequence number, without `seq`.
    private static func jsonLine(_ event: CaptureDeliveryEvent) -> String {
        var bytes = event.sequence == 0 ? event.encodedLineWithoutSequence() : event.encodedLine()
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self) + "\n"
    }
}
