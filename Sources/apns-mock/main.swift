import CLISupport
import Foundation
import MockAPNs
import Synchronization

// Before any thread starts: a SIGTERM sent as soon as the banner appears must stop the mock.
TerminationSignals.hold()
let version = SuiteVersion.current
let parser = CommandLineParser(
    command: "apns-mock",
    overview: "A mock of Apple Push Notification service (APNs) for tests and CI.",
    usage: "apns-mock [--config FILE] [--host ADDR] [--port N] [--sandbox-port N] [--control-port N] [--channel-sandbox-port N] [--channel-port N] [--no-tls] "
        + "[--tls-cert PEM --tls-key PEM] [--auth-key KEY_ID:TEAM_ID:PATH]... [--topic BUNDLE_ID]... [--capture FILE [--capture-fsync]] [--delivery] "
        + "[--max-connections N] [--connection-preface-timeout S] [--request-headers-timeout S] [--request-read-timeout S] "
        + "[--connection-error-budget N] [--control-token TOKEN | --control-token-file FILE] [--control-allowed-host NAME]... [--policy FILE] [--forward-to-simulator DEVICE] [--log-level LEVEL]",
    options: [
        .value("config", "FILE", help: "Read the JSON configuration file (docs/configuration.md)."),
        .value("host", "ADDR", help: "Address to listen on (default 127.0.0.1; :: for IPv4 and IPv6)."),
        .value("port", "N", help: "Production listener (default 2197; 0 picks a free port)."),
        .value("sandbox-port", "N", help: "Sandbox listener (default 2198)."),
        .value("control-port", "N", help: "Control API (default 2199), HTTP/1.1 and h2c."),
        .value("channel-sandbox-port", "N", help: "Sandbox channel management listener (default 2195, as Apple's)."),
        .value("channel-port", "N", help: "Production channel management listener (default 2196, as Apple's)."),
        .flag("no-tls", help: "APNs listeners speak h2c instead of TLS."),
        .value("tls-cert", "PEM", help: "Server certificate (default certs/server.pem)."),
        .value("tls-key", "PEM", help: "Server private key (default certs/server.key)."),
        .value("auth-key", "KEY_ID:TEAM_ID:PATH", help: "Trust a provider key (.p8 or public-key PEM).", repeatable: true),
        .value("topic", "BUNDLE_ID", help: "Serve an app (its push-type topics too).", repeatable: true),
        .value("capture", "FILE", help: "Append every push to FILE as JSON Lines (docs/capture-format.md); each push is answered once its line is written."),
        .value("max-connections", "N", help: "Connections each APNs listener holds at once; the next is closed at once (default 10000)."),
        .value("connection-preface-timeout", "SECONDS",
               help: "A new connection's HTTP/2 preface and SETTINGS must come within this of the TLS handshake (default 10)."),
        .value("request-headers-timeout", "SECONDS", help: "A push's headers must arrive within this of its HEADERS frame, or 408 (default 10)."),
        .value("request-read-timeout", "SECONDS", help: "A whole push, body included, must arrive within this, or 408 (default 30)."),
        .value("connection-error-budget", "N",
               help: "End a connection with GOAWAY after N rejected pushes (410 does not count), as APNs does; default off."),
        .value("control-token", "TOKEN", help: "Require 'authorization: Bearer TOKEN' on the control API (all but GET /healthz)."),
        .value("control-token-file", "FILE", help: "The same, with the token read from FILE (trailing newlines dropped)."),
        .value("control-allowed-host", "NAME",
               help: "Also answer control-API requests for this host name (a container or proxy name); localhost and IP addresses always are.",
               repeatable: true),
        .value("policy", "FILE", help: "A push-inspect policy file the control API offers as a profile for findings."),
        .value("forward-to-simulator", "DEVICE",
               help: "Run 'xcrun simctl push DEVICE BUNDLE FILE' for each accepted alert push (macOS; DEVICE may be 'booted'; docs/macos.md)."),
        .value("log-level", "LEVEL", help: "trace, debug, info (default: a line per push), notice, warning, error or critical."),
        .flag("capture-fsync", help: "With --capture: fdatasync each batch of lines before answering (survives power loss)."),
        .flag("delivery", help: "Model what happens after the 200: devices online or offline, stored pushes, the delivery log (docs/delivery.md)."),
    ],
    environmentPrefix: "APNS_MOCK")

let certsVariable = "APNS_MOCK_CERTS"
// A long-running server: large freed buffers go back to the system (the type says why).
LargeAllocationPolicy.returnLargeBuffersToTheSystem()
let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: version, helpFooter: "\nENVIRONMENT:\n"
    + "  \(certsVariable)  folder of the test keys and certificates the defaults use (default: certs in the current\n"
    + "                   directory if there is one, else the set built beside apns-mock)\n")

/// The test material the defaults read: the variable's folder, the checkout's `certs/` when
/// run from the checkout, else the copy SwiftPM put beside the binary, so that
/// `.build/release/apns-mock` starts from any directory.
func defaultCertsDirectory() -> String {
    if let directory = ProcessInfo.processInfo.environment[certsVariable] { return directory }
    if FileManager.default.fileExists(atPath: "certs") { return "certs" }
    return (try? MockTestCertificates.locateBundled().directory) ?? "certs"
}

let certsDirectory = defaultCertsDirectory()
var configuration: MockConfiguration
var logLevel = Logger.Level.info
do {
    configuration = try MockConfiguration.makeDefault(certsDirectory: certsDirectory)
} catch {
    parser.exitWithUsageError("\(error)\nThe defaults read the test keys and certificates in '\(certsDirectory)': "
        + "run apns-mock from the checkout, keep it beside the '…_MockAPNs.resources' folder it was built with, "
        + "or set \(certsVariable) to a folder with a copy of certs/.")
}
do {
    // Read without the check of the settings together, so that a flag may resolve what the
    // file breaks (`--sandbox-port` for two ports that clash); checked once, below.
    var fromFile: (path: String, configuration: MockConfiguration)?
    if let path = arguments.value("config") {
        configuration = try MockConfiguration.loadForOverrides(path: path, base: configuration)
        fromFile = (path, configuration)
    }
    if let host = arguments.value("host") { configuration.server.host = host }
    if let port = try arguments.integer("port", in: 0...65535) { configuration.server.productionPort = port }
    if let port = try arguments.integer("sandbox-port", in: 0...65535) { configuration.server.sandboxPort = port }
    if let port = try arguments.integer("control-port", in: 0...65535) { configuration.server.controlPort = port }
    if let port = try arguments.integer("channel-sandbox-port", in: 0...65535) { configuration.server.channelSandboxPort = port }
    if let port = try arguments.integer("channel-port", in: 0...65535) { configuration.server.channelProductionPort = port }
    if arguments.has("no-tls") {
        // A certificate given with --no-tls would be silently unused: the person meant one or the other.
        if arguments.value("tls-cert") != nil || arguments.value("tls-key") != nil {
            throw CommandLineError("\(arguments.origin(of: "tls-cert")) and \(arguments.origin(of: "tls-key")) serve TLS, "
                + "which \(arguments.origin(of: "no-tls")) turns off; give one or the other")
        }
        configuration.server.tlsEnabled = false
    }
    if let path = arguments.value("tls-cert") { configuration.server.certificatePath = path }
    if let path = arguments.value("tls-key") { configuration.server.privateKeyPath = path }
    try configuration.addKeys(commandLineSpecs: arguments.all("auth-key"))
    for topic in arguments.all("topic") { try configuration.addApp(commandLineBundleID: topic) }
    if let path = arguments.value("capture") { configuration.server.captureFilePath = path }
    if arguments.has("capture-fsync") { configuration.server.captureSyncsEachBatch = true }
    if arguments.has("delivery") { configuration.delivery.enabled = true }
    if let count = try arguments.integer("max-connections", in: 1...Int(Int32.max)) { configuration.server.maxConnections = count }
    let timeouts: [(String, WritableKeyPath<MockServerSettings, Duration>)] = [
        ("connection-preface-timeout", \.connectionPrefaceTimeout), ("request-headers-timeout", \.requestHeadersTimeout),
        ("request-read-timeout", \.requestReadTimeout),
    ]
    for (flag, field) in timeouts {
        if let timeout = try arguments.seconds(flag, in: MockServerSettings.timeoutSeconds) { configuration.server[keyPath: field] = timeout }
    }
    if let budget = try arguments.integer("connection-error-budget", in: 1...Int(Int32.max)) {
        configuration.server.connectionErrorBudget = budget
    }
    if let token = arguments.value("control-token") { configuration.server.controlAccessToken = token }
    if let path = arguments.value("control-token-file") {
        guard arguments.value("control-token") == nil else {
            throw CommandLineError("give \(arguments.origin(of: "control-token")) or \(arguments.origin(of: "control-token-file")), not both")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError("\(arguments.origin(of: "control-token-file")): cannot read '\(path)'")
        }
        var token = String(decoding: data, as: UTF8.self)
        while token.last?.isNewline == true { token.removeLast() }
        configuration.server.controlAccessToken = token
    }
    configuration.server.controlAllowedHosts += arguments.all("control-allowed-host")
    if let path = arguments.value("policy") {
        configuration.policy = try MockConfiguration.loadPolicy(file: path, path: arguments.origin(of: "policy"))
    }
    if let device = arguments.value("forward-to-simulator") {
        guard SimulatorForwardingSettings.locateXcrun() != nil else {
            throw CommandLineError("\(arguments.origin(of: "forward-to-simulator")): \(SimulatorForwardingSettings.missingXcrunMessage)")
        }
        var forwarding = configuration.simulatorForwarding ?? SimulatorForwardingSettings(device: device)
        forwarding.device = device
        configuration.simulatorForwarding = forwarding
    }
    if let level = try arguments.logLevel() { logLevel = level }
    if configuration.server.captureSyncsEachBatch, configuration.server.captureFilePath == nil {
        throw CommandLineError("\(arguments.origin(of: "capture-fsync")) syncs the capture file, and there is none: add --capture FILE")
    }
    // Checked once the flags are applied: `--port 4200 --sandbox-port 4200` is the same usage
    // error as the clash in a file, which names the file when the flags left the clash in it.
    if let fromFile {
        try configuration.validate(readFrom: fromFile.path, asRead: fromFile.configuration)
    } else {
        try configuration.validate()
    }
} catch let error as CommandLineError {
    parser.exitWithUsageError(error.message)
} catch {
    parser.exitWithUsageError("\(error)")
}

signal(SIGPIPE, SIG_IGN)
// Batched: a line per push with a write(2) each costs more system time than the push's
// TLS. Lines may appear up to 50 ms late; exit (normal or on SIGINT/SIGTERM) flushes them.
let logger = {
    var logger = Logger(label: "apns-mock", sink: .bufferedStandardError)
    logger.logLevel = logLevel
    return logger
}()
let mock: MockAPNsServer
do {
    mock = try MockAPNsServer(configuration: configuration, observers: [PushLogObserver(logger: logger)])
} catch {
    logger.error("cannot start: \(error)")
    exit(1)
}

var banner = """
    apns-mock \(version)
      production  \(mock.productionURL)
      sandbox     \(mock.sandboxURL)
      control     \(mock.controlURL)
      channels-production  \(mock.channelProductionURL)
      channels-sandbox     \(mock.channelSandboxURL)

    """
if let ca = mock.trustRootsPath { banner += "  CA          \(ca)\n" }
for (keyID, key) in mock.registry.keys.sorted(by: { $0.key < $1.key }) {
    banner += "  key         kid \(keyID)  team \(key.teamID)\n"
}
banner += "  topics      \(mock.registry.bundleIDs.sorted().joined(separator: ", "))\n"
if let capture = configuration.server.captureFilePath { banner += "  capture     \(capture)\n" }
if let forwarding = configuration.simulatorForwarding { banner += "  simulator   \(forwarding.device) (xcrun simctl push)\n" }
// Scripts and tests read the URLs from the banner, so a banner that could not be written (a
// full disk, a closed terminal) fails the start: the mock stops before anyone is told where
// it is, exiting 1 as for any other failure to start (2 is for usage errors).
do {
    try StandardStreams.writeOutput(banner, naming: "the banner")
} catch {
    logger.error("cannot start: \(error)")
    mock.stop()
    exit(1)
}

/// Why capture lines were lost, for the log.
nonisolated func captureLoss(_ file: CaptureFileWriter) -> String {
    file.lastError.map { "\($0)" } ?? "\(file.path) fell too far behind"
}

/// Says, once a second while it grows, how many capture lines the file has lost (a full
/// disk, a failed write): a CI run must not pass unnoticed on a capture with holes in it.
/// Off the main actor, so its handler may run on a global queue.
nonisolated func reportCaptureLoss(of file: CaptureFileWriter, to logger: Logger) -> any DispatchSourceTimer {
    let timer = DispatchSource.makeTimerSource(queue: .global())
    let reported = Mutex(0)
    timer.schedule(deadline: .now() + 1, repeating: 1)
    timer.setEventHandler {
        let dropped = file.droppedRecordCount + file.unsyncedRecordCount
        let isNew = reported.withLock { last -> Bool in
            guard last != dropped else { return false }
            last = dropped
            return true
        }
        if isNew { logger.error("capture file: \(dropped) line(s) lost so far: \(captureLoss(file))") }
    }
    timer.resume()
    return timer
}

let captureWatch = mock.capture.fileWriter.map { reportCaptureLoss(of: $0, to: logger) }
let simulatorWatch = mock.simulatorForwarder.map { reportSimulatorForwarding(of: $0, to: logger) }
if let warning = configuration.server.controlExposureWarning(controlURL: mock.controlURL) { logger.warning("\(warning)") }

TerminationSignals.wait()
captureWatch?.cancel()
simulatorWatch?.cancel()
mock.stop()
if let file = mock.capture.fileWriter, file.droppedRecordCount + file.unsyncedRecordCount > 0 {
    logger.error("stopped; \(file.droppedRecordCount + file.unsyncedRecordCount) capture line(s) could not be written or synced: \(captureLoss(file))")
    exit(1)
}
logger.info("stopped; capture flushed")
