import CLISupport
import MockAPNs

/// Logs one line per push at info level: who, where, and the answer; never the payload.
struct PushLogObserver: PushObserver {
    let logger: Logger

    func pushAnswered(_ request: PushRequest, details: PushDetails, outcome: PushOutcome, faults: [String]) {
        var metadata = [
            "push.env": request.environment.rawValue,
            "push.connection": String(request.connectionID),
            "push.status": String(outcome.status),
            "push.apns-id": outcome.apnsID,
        ]
        if let token = details.deviceToken { metadata["push.device"] = token.masked }
        if let topic = details.topic { metadata["push.topic"] = topic }
        if let type = details.pushType { metadata["push.type"] = type.rawValue }
        if let reason = outcome.reason { metadata["push.reason"] = reason.wireValue }
        if !details.lintWarnings.isEmpty { metadata["push.lints"] = String(details.lintWarnings.count) }
        if !faults.isEmpty { metadata["push.faults"] = String(faults.count) }
        logger.info(outcome.isAccepted ? "push accepted" : "push rejected", metadata: metadata)
    }
}
