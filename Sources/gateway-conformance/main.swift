import CLISupport
import Foundation
import GatewayConformance
import HermesContract

let version = SuiteVersion.current
let secretVariable = "HERMES_PUSH_HMAC_SECRET"
let checkRange = "\(GatewayConformanceSuite.numbers.lowerBound)-\(GatewayConformanceSuite.numbers.upperBound)"
let parser = CommandLineParser(
    command: "gateway-conformance",
    overview: "Judges a Hermes push gateway against its contract, through the apns-mock it forwards to.",
    usage: "gateway-conformance --gateway URL --mock-control URL [--auth-mode hmac|capability] [--topic BUNDLE_ID] "
        + "[--environment sandbox|production] [--ca PEM] [--junit FILE] [--check N]...",
    options: [
        .value("gateway", "URL", help: "The push URL the plugin uses (…/push), or the gateway's base URL."),
        .value("mock-control", "URL", help: "Control API of the apns-mock the gateway forwards to (e.g. http://127.0.0.1:2199)."),
        .value("auth-mode", "MODE", help: "hmac (secret from \(secretVariable)[_FILE]) or capability (default: hmac when the secret is set)."),
        .value("topic", "BUNDLE_ID", help: "The bundle id the gateway is configured with; checks apns-topic when given."),
        .value("environment", "ENV", help: "apns_env of the pushes: sandbox (default) or production."),
        .value("ca", "PEM", help: "Trust these CAs for an https gateway."),
        .value("timeout", "SECONDS", help: "How long to wait for a push at the mock (default 10)."),
        .value("soak", "SECONDS", help: "Check 6: how long to keep pushing in real time (default 3)."),
        .value("junit", "FILE", help: "Also write the results as JUnit XML."),
        .value("check", "N", help: "Run only check N (\(checkRange)).", repeatable: true),
    ])

let arguments = parser.parseOrExit(CommandLine.arguments.dropFirst(), version: version, helpFooter: "\nCHECKS:\n"
    + GatewayConformanceSuite.numbers.map { "  \($0). \(GatewayConformanceSuite.titles[$0] ?? "")" }.joined(separator: "\n")
    + "\n\nEXIT: 0 all checks pass, 1 a check failed, 2 usage or input error, or output that could not be written.\n")

func readSecret() throws(CommandLineError) -> [UInt8]? {
    let environment = ProcessInfo.processInfo.environment
    if let direct = environment[secretVariable] { return direct.isEmpty ? nil : Array(direct.utf8) }
    guard let path = environment[secretVariable + "_FILE"] else { return nil }
    guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
        throw CommandLineError("\(secretVariable)_FILE: cannot read \(path)")
    }
    if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
    return bytes.isEmpty ? nil : bytes
}

var configuration: ConformanceConfiguration
var checks: [Int] = []
do throws(CommandLineError) {
    guard let gateway = arguments.value("gateway") else { throw CommandLineError("--gateway is required") }
    guard let control = arguments.value("mock-control") else { throw CommandLineError("--mock-control is required") }
    for url in [gateway, control] where !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
        throw CommandLineError("'\(url)' is not an http:// or https:// URL")
    }
    let secret = try readSecret()
    let credentials: ConformanceConfiguration.Credentials
    switch arguments.value("auth-mode") ?? (secret == nil ? "capability" : "hmac") {
    case "hmac":
        guard let secret else { throw CommandLineError("--auth-mode hmac needs the shared secret in \(secretVariable) or \(secretVariable)_FILE") }
        credentials = .hmac(secret: secret)
    case "capability": credentials = .capability
    case let other: throw CommandLineError("--auth-mode expects hmac or capability, got '\(other)'")
    }
    configuration = ConformanceConfiguration(gatewayURL: gateway, mockControlURL: control.hasSuffix("/") ? String(control.dropLast()) : control,
                                             credentials: credentials)
    configuration.topic = arguments.value("topic")
    if let text = arguments.value("environment") {
        guard let environment = HermesAPNsEnvironment(rawValue: text) else {
            throw CommandLineError("--environment expects sandbox or production, got '\(text)'")
        }
        configuration.environment = environment
    }
    if let seconds = try arguments.integer("timeout", in: 1...600) { configuration.waitTimeout = .seconds(seconds) }
    if let seconds = try arguments.integer("soak", in: 0...86_400) { configuration.soakDuration = .seconds(seconds) }
    if let ca = arguments.value("ca") {
        guard FileManager.default.isReadableFile(atPath: ca) else { throw CommandLineError("--ca: cannot read \(ca)") }
        // swift-corelibs-foundation's URLSession (libcurl) reads its CA bundle from here.
        setenv("URLSessionCertificateAuthorityInfoFile", ca, 1)
    }
    for text in arguments.all("check") {
        guard let number = Int(text), GatewayConformanceSuite.numbers.contains(number) else {
            throw CommandLineError("--check expects \(GatewayConformanceSuite.numbers.lowerBound) to \(GatewayConformanceSuite.numbers.upperBound), got '\(text)'")
        }
        checks.append(number)
    }
} catch {
    parser.exitWithUsageError(error.message)
}

let results = await GatewayConformanceSuite(configuration: configuration).run(checks.isEmpty ? Array(GatewayConformanceSuite.numbers) : checks)
// A table that could not be printed fails the run with 2, as a JUnit file that could not be
// written does (1 would say a check failed); the JUnit file is still written, for CI to read.
let tableWritten = StandardStreams.writeOutputOrReport(ConformanceReport.table(results), naming: "the results table")
if let path = arguments.value("junit") {
    do {
        try Data(ConformanceReport.junit(results).utf8).write(to: URL(fileURLWithPath: path))
    } catch {
        StandardStreams.printError("cannot write \(path): \(error.localizedDescription)")
        exit(2)
    }
}
guard tableWritten else { exit(2) }
exit(results.allSatisfy(\.passed) ? 0 : 1)
