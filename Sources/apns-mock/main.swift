import CLISupport
import Foundation
import HTTPTransport

// apns-mock, foundation stage: a real HTTP/2 server (TLS with and without ALPN, and h2c)
// that answers every well-formed `POST /3/device/<token>` with an APNs-shaped 200.
// Full validation arrives with the MockAPNs library.

let version = "0.1.0"
let parser = CommandLineParser(
    command: "apns-mock",
    overview: "A mock of Apple Push Notification service (APNs) for tests and CI.",
    usage: "apns-mock [--host ADDR] [--port N] [--no-tls] [--tls-cert PEM --tls-key PEM]",
    options: [
        .value("host", "ADDR", help: "Address to listen on (default 127.0.0.1; :: for IPv4 and IPv6)."),
        .value("port", "N", help: "Port to listen on (default 2197; 0 picks a free port)."),
        .flag("no-tls", help: "Serve HTTP/2 by prior knowledge (h2c) and HTTP/1.1 in cleartext."),
        .value("tls-cert", "PEM", help: "Server certificate (default certs/server.pem)."),
        .value("tls-key", "PEM", help: "Server private key (default certs/server.key)."),
    ])

func standardOutput(_ text: String) {
    FileHandle.standardOutput.write(Data(text.utf8))
}

let arguments: ParsedArguments
do {
    switch try parser.parse(CommandLine.arguments.dropFirst()) {
    case .help:
        standardOutput(parser.helpText)
        exit(0)
    case .version:
        standardOutput(version + "\n")
        exit(0)
    case let .run(parsed):
        arguments = parsed
    }
} catch {
    FileHandle.standardError.write(Data(parser.errorText(error).utf8))
    exit(2)
}

let logger = Logger(label: "apns-mock")
let certsDirectory = ProcessInfo.processInfo.environment["APNS_MOCK_CERTS"] ?? "certs"
var configuration = HTTPServerConfiguration(host: arguments.value("host") ?? "127.0.0.1", port: 2197)
do {
    configuration.port = try arguments.integer("port", in: 0...65535) ?? 2197
} catch {
    FileHandle.standardError.write(Data(parser.errorText(error).utf8))
    exit(2)
}
let useTLS = !arguments.has("no-tls")
if useTLS {
    configuration.tls = .makeServerConfiguration(
        certificateChainPath: arguments.value("tls-cert") ?? "\(certsDirectory)/server.pem",
        privateKeyPath: arguments.value("tls-key") ?? "\(certsDirectory)/server.key")
}

signal(SIGPIPE, SIG_IGN)
let server: HTTPServer
do {
    server = try HTTPServer(configuration: configuration, handler: StubAPNsHandler())
} catch {
    logger.error("cannot start: \(error)")
    exit(1)
}
let scheme = useTLS ? "https" : "http"
standardOutput("apns-mock \(version) listening on \(scheme)://\(server.localAddress)\(useTLS ? "" : " (h2c and HTTP/1.1)")\n")
if useTLS { standardOutput("CA certificate: \(certsDirectory)/ca.pem\n") }

let stop = DispatchSemaphore(value: 0)
var sources: [DispatchSourceSignal] = []
for sig in [SIGINT, SIGTERM] {
    signal(sig, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
    source.setEventHandler { stop.signal() }
    source.resume()
    sources.append(source)
}
stop.wait()
server.shutdown(gracePeriod: .seconds(2))
logger.info("stopped")
