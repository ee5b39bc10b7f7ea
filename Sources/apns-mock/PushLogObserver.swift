import CLISupport
import MockAPNs

/// Logs one line per push at info level: who, where, and the answer; never the payload.
struct PushLogObserver: PushObserver {
    let logger: Logger

    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        guard logger.logLevel <= .info else { return }
        var fields: [(String, String)] = [
            ("push.env", request.environment.rawValue),
            ("push.connection", String(request.connectionID)),
            ("push.status", String(outcome.status)),
            ("push.apns-id", outcome.apnsID),
        ]
        fields.reserveCapacity(10)
        if let token = details.deviceToken { fields.append(("push.device", token.masked)) }
        if let topic = details.topic { fields.append(("push.topic", topic)) }
        if let type = details.pushType { fields.append(("push.type", type.rawValue)) }
        if let reason = outcome.reason { fields.append(("push.reason", reason.wireValue)) }
        if !details.lintWarnings.isEmpty { fields.append(("push.lints", String(details.lintWarnings.count))) }
        if !faults.isEmpty { fields.append(("push.faults", String(faults.count))) }
        logger.log(level: .info, outcome.isAccepted ? "push accepted" : "push rejected", fields: fields)
    }
}
