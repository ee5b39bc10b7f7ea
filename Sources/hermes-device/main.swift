import APNsCore
import CLISupport
import Foundation
import HermesApp

// hermes-device: a virtual iPhone running the Hermes app's push logic against apns-mock.

let version = SuiteVersion.current
if CommandLine.arguments.dropFirst().first == "onboarding" {
    await OnboardingCommand.run(Array(CommandLine.arguments.dropFirst(2)), version: version)
}

let parser = CommandLineParser(
    command: "hermes-device",
    overview: "A virtual device: waits for the pushes apns-mock accepted for one device token and prints what the Hermes app would do with each. 'hermes-device onboarding' runs the app's onboarding instead (see 'hermes-device onboarding --help').",
    usage: "hermes-device --device-token HEX [--control URL] [--count N] [--timeout SECONDS] [--background] [--viewing SESSION_ID]",
    options: [
        .value("device-token", "HEX", help: "The device token to listen for."),
        .value("control", "URL", help: "apns-mock's control API (default http://127.0.0.1:2199)."),
        .value("count", "N", help: "How many pushes to wait for (default 1)."),
        .value("timeout", "SECONDS", help: "How long to wait for them (default 30)."),
        .flag("background", help: "The app is in the background (default: foreground)."),
        .value("viewing", "SESSION_ID", help: "The session on screen: its pushes show no banner."),
    ])

let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: version)

let count: Int
let timeout: Int
let controlURL: URL
do {
    count = try arguments.integer("count", in: 1...10_000) ?? 1
    timeout = try arguments.integer("timeout", in: 1...3_600) ?? 30
} catch {
    parser.exitWithUsageError(error.message)
}
guard let token = arguments.value("device-token").flatMap({ DeviceToken($0) })?.hex else {
    parser.exitWithUsageError("--device-token must be an even number of hex digits")
}
let controlText = arguments.value("control") ?? "http://127.0.0.1:2199"
guard let parsedURL = URL(string: controlText), parsedURL.scheme == "http" || parsedURL.scheme == "https" else {
    parser.exitWithUsageError("--control must be an http(s) URL, such as http://127.0.0.1:2199")
}
controlURL = parsedURL

let device = HermesVirtualDevice(controlURL: controlURL, deviceToken: token)
await device.handler.setForeground(!arguments.has("background"))
await device.handler.setViewing(sessionID: arguments.value("viewing"))

do {
    var seen = 0
    let deadline = Date().addingTimeInterval(Double(timeout))
    while seen < count, deadline.timeIntervalSinceNow > 0 {
        for delivery in try await device.poll(timeout: deadline.timeIntervalSinceNow) {
            seen += 1
            // A report that could not be printed ends the run (exit 1): the device exists to
            // show what the app did, and waiting for more pushes would only lose those too.
            guard StandardStreams.writeOutputOrReport(HermesDeliveryReport.text(delivery, number: seen),
                                                      naming: "the report of push \(seen)") else { exit(1) }
        }
    }
    guard seen >= count else {
        StandardStreams.write("hermes-device: \(seen) of \(count) push(es) arrived within \(timeout) s\n", to: StandardStreams.error)
        exit(1)
    }
} catch {
    StandardStreams.printError("\(error)")
    exit(1)
}
