import Foundation

/// One `xcrun simctl push DEVICE BUNDLE FILE`: writes the payload to a temporary file, runs
/// the command, waits for it (terminating it past the timeout) and removes the files.
/// Blocks its caller, so only ``SimulatorForwarder``'s worker thread runs it.
struct SimulatorPushCommand {
    let xcrunPath: String
    let device: String
    let timeout: Duration

    /// Time a terminated command gets to exit before it is killed.
    static let terminationGrace = DispatchTimeInterval.seconds(2)
    /// Bytes of standard error kept for the failure's description.
    static let errorExcerptLength = 300

    /// The arguments after `xcrun`.
    func arguments(bundleID: String, file: String) -> [String] {
        ["simctl", "push", device, bundleID, file]
    }

    /// Runs the command for one push.
    ///
    /// - Parameter wake: signalled when `xcrun` exits; signalled by another thread while it
    ///   runs (a forwarder stopping), it ends the command as the timeout does.
    /// - Returns: nil when `xcrun` exited 0, else what went wrong, for a person.
    func run(bundleID: String, payload: [UInt8], wake: DispatchSemaphore) -> String? {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("apns-mock-simctl-\(UUID().uuidString)")
        let payloadPath = base.appendingPathExtension("json").path
        let errorPath = base.appendingPathExtension("stderr").path
        defer {
            try? FileManager.default.removeItem(atPath: payloadPath)
            try? FileManager.default.removeItem(atPath: errorPath)
        }
        let command = "xcrun simctl push \(device) \(bundleID)"
        guard FileManager.default.createFile(atPath: payloadPath, contents: Data(payload)),
              FileManager.default.createFile(atPath: errorPath, contents: nil),
              let errorOutput = FileHandle(forWritingAtPath: errorPath) else {
            return "\(command): cannot write the payload to a temporary file in \(base.deletingLastPathComponent().path)"
        }
        defer { try? errorOutput.close() }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: xcrunPath)
        process.arguments = arguments(bundleID: bundleID, file: payloadPath)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errorOutput
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in
            exited.signal()
            wake.signal()
        }
        do {
            try process.run()
        } catch {
            return "\(command): cannot start \(xcrunPath): \(error.localizedDescription)"
        }
        // Signalled by pid, kept from the start: once it has exited, `Process` may report -1,
        // which kill(2) takes as every process the user owns.
        let pid = process.processIdentifier
        let timedOut = wake.wait(timeout: Self.deadline(after: timeout)) == .timedOut
        // Woken before it exited: asked to stop, which ends it as the timeout does.
        if timedOut || exited.wait(timeout: .now()) == .timedOut {
            kill(pid, SIGTERM)
            if exited.wait(timeout: .now() + Self.terminationGrace) == .timedOut {
                kill(pid, SIGKILL)
                exited.wait()
            }
            return "\(command): \(timedOut ? "still running after \(timeout)" : "still running when forwarding stopped"), terminated"
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let how = process.terminationReason == .exit ? "exit status \(process.terminationStatus)"
                : "killed by signal \(process.terminationStatus)"
            return "\(command): \(how)\(Self.firstLine(ofFile: errorPath).map { ": \($0)" } ?? "")"
        }
        return nil
    }

    /// `duration` from now, to the millisecond, for a semaphore's wait.
    static func deadline(after duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = duration.components
        return .now() + .milliseconds(Int(seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    /// The first non-empty line of the file, cut to ``errorExcerptLength`` bytes.
    static func firstLine(ofFile path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data.prefix(errorExcerptLength), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).first.map(String.init)
    }
}
