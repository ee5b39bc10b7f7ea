import APNsCapture
import CLISupport
import Foundation

/// `push-inspect export --apns DIR`: one simulator `.apns` file per captured push, which
/// `xcrun simctl push booted FILE` delivers (``SimulatorPushFile``, the control API's
/// `GET /pushes/{seq}/simulator` builds the same).
enum ExportCommand {
    static let parser = CommandLineParser(
        command: "push-inspect export",
        overview: "Write each captured push as a simulator .apns file (xcrun simctl push booted FILE).",
        usage: "push-inspect export --apns DIR [FILTERS] [FILE... | --from URL [--wait N --timeout S]]",
        options: [
            .value("apns", "DIR", help: "Write one <apns-id>.apns file per push into DIR (created if missing)."),
        ] + InspectOptions.captureInput,
        acceptsPositional: true)

    static func run(_ arguments: ParsedArguments, terminal: Terminal) async throws(CommandLineError) -> Int32 {
        guard let directory = arguments.value("apns") else {
            throw CommandLineError("name the folder to write the .apns files into: --apns DIR")
        }
        var feed = try InspectOptions.feed(arguments, follows: false, terminal: terminal)
        do {
            try prepare(directory)
        } catch {
            terminal.err("error: \(error.message)")
            return 2
        }
        let quiet = arguments.has("quiet")
        var written: Set<String> = []
        var skipped = 0
        var failure: InputError?
        await feed.runRecords { record, source in
            guard failure == nil else { return }
            let file: SimulatorPushFile
            do {
                file = try SimulatorPushFile(record: record)
            } catch {
                skipped += 1
                terminal.err("warning: \(source)#\(record.sequence): skipped: \(error)")
                return
            }
            // Two pushes may share an apns-id (a sender's retry); neither replaces the other.
            var name = file.fileName
            if written.contains(name) {
                name = "\(name.dropLast(SimulatorPushFile.fileExtension.count + 1))-\(record.sequence).\(SimulatorPushFile.fileExtension)"
            }
            let path = (directory as NSString).appendingPathComponent(name)
            do {
                try Data(file.contents).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                failure = InputError("\(path): cannot write the .apns file: \(error.localizedDescription)")
                return
            }
            written.insert(name)
            if !quiet { terminal.out("\(TerminalText.escaped(path))\n") }
        }
        if let failure {
            terminal.err("error: \(failure.message)")
            return 2
        }
        if !quiet {
            terminal.err("wrote \(written.count) .apns file\(written.count == 1 ? "" : "s") to \(TerminalText.escaped(directory))"
                + (skipped > 0 ? "; skipped \(skipped) push\(skipped == 1 ? "" : "es") with no topic or no JSON object payload" : ""))
        }
        if feed.inputErrors > 0 { return 2 }
        return feed.waitUnsatisfied ? 1 : 0
    }

    /// Makes `directory` if it is missing, and checks that files can be written in it, so that
    /// a bad `--apns` fails before any push is read.
    static func prepare(_ directory: String) throws(InputError) {
        var status = stat()
        if stat(directory, &status) != 0 {
            guard errno == ENOENT, mkdir(directory, 0o755) == 0 else {
                throw InputError("\(directory): cannot make the folder for the .apns files: \(String(cString: strerror(errno)))")
            }
            return
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw InputError("\(directory): not a folder; --apns names the folder the .apns files go into")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw InputError("\(directory): cannot write the .apns files there: \(String(cString: strerror(errno)))")
        }
    }
}
