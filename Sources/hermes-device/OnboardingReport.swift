import Foundation
import HermesApp

/// The lines `hermes-device onboarding` prints for one run.
enum OnboardingReport {
    static func text(_ transcript: HermesOnboardingTranscript, source: String) -> String {
        let first = transcript.firstLaunch
        var lines = ["launch \(time(first.date))  \(source)",
                     "  readiness      \(readiness(first))",
                     "  app            \(decision(first.decision))"]
        if case .showInfoSheet(let sheet) = first.decision {
            lines += ["  sheet          \(sheet.title)",
                      "                 \(sheet.message)",
                      "                 " + sheet.actions.map { "[\($0.title)]" }.joined(separator: " ")]
        }
        if !transcript.osRequests.isEmpty {
            lines.append("  OS             " + transcript.osRequests.map(request).joined(separator: ", then "))
        }
        for snooze in transcript.snoozes {
            lines += ["later \(snooze.number)  tapped \(time(snooze.tappedAt))  snoozed \(snooze.days) day\(snooze.days == 1 ? "" : "s"), "
                        + "until \(time(snooze.until))",
                      "  launch \(time(snooze.launchJustBefore.date))  \(decision(snooze.launchJustBefore.decision))",
                      "  launch \(time(snooze.launchAtEnd.date))  \(decision(snooze.launchAtEnd.decision))"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func time(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    private static func readiness(_ launch: HermesOnboardingTranscript.Launch) -> String {
        let answer = switch launch.hubAnswer {
        case .response(let status, _): "the hub answered \(status)"
        case .transportError(let detail): "the hub could not be read: \(detail)"
        }
        return switch launch.readiness {
        case .ready: "ready (\(answer), hermes-push enabled)"
        case .notReady: "not ready (\(answer), hermes-push missing or not enabled)"
        case .unknown: "unknown (\(answer))"
        }
    }

    private static func decision(_ decision: HermesOnboardingDecision) -> String {
        switch decision {
        case .requestPermissionThenRegister: "asks for notification permission, then registers"
        case .showInfoSheet: "shows the install sheet"
        case .stayQuiet(.snoozed): "stays quiet (snoozed)"
        case .stayQuiet(.readinessUnknown): "stays quiet (readiness unknown: never nags)"
        }
    }

    private static func request(_ request: HermesVirtualPermission.Request) -> String {
        switch request {
        case .prompt(let allowed): "permission prompt (\(allowed ? "allowed" : "denied"))"
        case .registerForRemoteNotifications: "registerForRemoteNotifications"
        }
    }
}
