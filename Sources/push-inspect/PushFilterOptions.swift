import APNsCapture
import APNsCore
import CLISupport
import Foundation
import StrictJSON

/// The filter options every command shares (`--apns-id`, `--device-token`, `--topic`,
/// `--push-type`, `--env`, `--outcome`, `--since`), as one ``CaptureFilter``: the same
/// conditions the control API applies, so a file and a live mock select alike.
enum PushFilterOptions {
    /// Filters that only captured pushes have; `--topic` and `--push-type` set a bare
    /// payload's headers instead.
    static let captureOnly = ["apns-id", "device-token", "env", "outcome", "since"]

    /// The filter the arguments describe.
    ///
    /// - Parameter payloadMode: whether every input is a bare payload, which only `--topic`
    ///   and `--push-type` apply to (as headers).
    /// - Throws: `CommandLineError` for a malformed value, or a capture filter on bare payloads.
    static func filter(_ arguments: ParsedArguments, payloadMode: Bool) throws(CommandLineError) -> CaptureFilter {
        if payloadMode {
            if let name = captureOnly.first(where: { arguments.value($0) != nil }) {
                throw CommandLineError("--\(name) selects captured pushes; bare payloads have no answer, token or time to match")
            }
            return .all
        }
        var filter = CaptureFilter.all
        filter.apnsID = arguments.value("apns-id")
        if let token = arguments.value("device-token") {
            guard token.withBorrowedUTF8({ HexDigits.areHex($0, allowingUppercase: true) }) else {
                throw CommandLineError("--device-token expects hex digits (the whole token or its start), got '\(token)'")
            }
            filter.deviceTokenPrefix = token
        }
        filter.topic = arguments.value("topic")
        if let type = arguments.value("push-type") {
            guard let pushType = APNsPushType(rawValue: type) else {
                throw CommandLineError("--push-type expects one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", ")), got '\(type)'")
            }
            filter.pushType = pushType
        }
        if let name = arguments.value("env") {
            guard let environment = APNsEnvironment(rawValue: name) else {
                throw CommandLineError("--env expects production or sandbox, got '\(name)'")
            }
            filter.environment = environment
        }
        if let outcome = arguments.value("outcome") {
            switch outcome {
            case "accepted": filter.outcome = .accepted
            case "rejected": filter.outcome = .rejected
            default:
                let reason = APNsReason(wireValue: outcome)
                guard reason.status != nil else {
                    throw CommandLineError("--outcome expects accepted, rejected or an APNs reason such as BadDeviceToken "
                        + "(exact spelling), got '\(outcome)'")
                }
                filter.reason = reason
            }
        }
        if let text = arguments.value("since") {
            guard let date = time(text) else {
                throw CommandLineError("--since expects UNIX seconds or an RFC 3339 time such as 2026-11-30T10:00:00Z, got '\(text)'")
            }
            filter.since = date
        }
        return filter
    }

    /// UNIX seconds, or RFC 3339 with or without fractional seconds.
    static func time(_ text: String) -> Date? {
        if let seconds = Int64(text) { return Date(timeIntervalSince1970: Double(seconds)) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
