import CLISupport
import MockAPNs

/// Logs one line per push at info level: who, where, and the answer; never the payload.
struct PushLogObserver: PushObserver {
    let logger: Logger

    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        guard logger.logLevel <= .info else { return }
        let build = { (line: inout LogLine) in
            line.field("push.env", request.environment.rawValue)
            line.field("push.connection", request.connectionID)
            line.field("push.status", outcome.status)
            line.field("push.apns-id", outcome.apnsID)
            if let token = details.deviceToken { line.field("push.device", token.masked) }
            if let topic = details.topic { line.field("push.topic", topic) }
            if let type = details.pushType { line.field("push.type", type.rawValue) }
            if let reason = outcome.reason { line.field("push.reason", reason.wireValue) }
            if !details.lintWarnings.isEmpty { line.field("push.lints", details.lintWarnings.count) }
            if !faults.isEmpty { line.field("push.faults", faults.count) }
        }
        if outcome.isAccepted {
            logger.log(level: .info, "push accepted", build: build)
        } else {
            logger.log(level: .info, "push rejected", build: build)
        }
    }
}
