import CLISupport
import MockAPNs

/// Logs one line per push at info level: who, where, and the answer; never the payload.
struct PushLogObserver: PushObserver {
    let logger: Logger

    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        guard logger.logLevel <= .info else { return }
        let message: StaticString = outcome.isAccepted ? "push accepted" : "push rejected"
        // The fields are written by a closure literal passed straight to `log`: kept in a
        // local, it would be an escaping closure whose context, holding copies of the
        // request, details and outcome, is allocated and freed on every push.
        logger.log(level: .info, message) { line in
            line.field("push.env", request.environment.rawValue)
            line.field("push.connection", request.connectionID)
            line.field("push.status", outcome.status)
            line.field("push.apns-id", outcome.apnsID)
            details.deviceToken?.withMaskedUTF8 { line.field("push.device", utf8: $0) }
            if let topic = details.topic { line.field("push.topic", topic) }
            if let type = details.pushType { line.field("push.type", type.rawValue) }
            if let channel = details.channelID { line.field("push.channel", channel) }
            if let reason = outcome.reason { line.field("push.reason", reason.wireValue) }
            if let explanation = outcome.explanation { line.field("push.explanation", explanation) }
            if outcome.isInjected { line.field("push.injected", "true") }
            if !details.lintWarnings.isEmpty {
                line.field("push.lints", details.lintWarnings.map(\.code).joined(separator: ","))
            }
            if !faults.isEmpty { line.field("push.faults", faults.count) }
        }
    }

    func channelRequestAnswered(_ operation: CaptureChannelOperation) {
        let message: StaticString = operation.reason == nil ? "channel request answered" : "channel request rejected"
        logger.log(level: .info, message) { line in
            line.field("channel.env", operation.environment.rawValue)
            line.field("channel.connection", operation.connectionID)
            line.field("channel.status", operation.status)
            line.field("channel.request-id", operation.requestID)
            if let name = operation.operation { line.field("channel.operation", name) }
            if let bundleID = operation.bundleID { line.field("channel.app", bundleID) }
            if let id = operation.channelID { line.field("channel.id", id) }
            if let reason = operation.reason { line.field("channel.reason", reason.wireValue) }
            if let explanation = operation.explanation { line.field("channel.explanation", explanation) }
        }
    }

    func http1RequestRefused(environment: APNsEnvironment, connectionID: UInt64, method: String, path: String) {
        logger.log(level: .info, "HTTP/1.x request refused: APNs speaks HTTP/2 only") { line in
            line.field("push.env", environment.rawValue)
            line.field("push.connection", connectionID)
            line.field("http.method", method)
            line.field("http.path", path)
        }
    }
}
