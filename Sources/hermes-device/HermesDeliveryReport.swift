import HermesApp

/// The lines hermes-device prints for one delivered push.
enum HermesDeliveryReport {
    static func text(_ delivery: HermesDelivery, number: Int) -> String {
        var lines = ["push \(number)  apns-id \(delivery.apnsID ?? "-")  topic \(delivery.topic ?? "-")  "
            + "push-type \(delivery.pushType ?? "-")  priority \(delivery.priority.map(String.init) ?? "-")  "
            + "collapse-id \(delivery.collapseID ?? "-")"]
        lines.append("  mock received  \(delivery.payloadText)")
        guard let outcome = delivery.outcome else {
            lines.append("  app            not a Hermes push: ignored")
            return lines.joined(separator: "\n") + "\n"
        }
        let shown = switch outcome.presentation {
        case .banner: "banner shown"
        case .suppressedViewingSession: "banner suppressed (viewing this session)"
        case .system: "shown by the OS (app in background)"
        }
        let route = switch outcome.tapRoute {
        case .session(let id): "open session \(id)"
        }
        lines.append("  app            \(outcome.notification.type.rawValue) \(outcome.notification.sessionID): \(shown); "
            + "tap -> \(route); badge \(outcome.badge)")
        return lines.joined(separator: "\n") + "\n"
    }
}
