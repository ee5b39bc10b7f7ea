import Foundation
import HTTPTransport

// apns-mock, foundation stage: a real HTTP/2 server (TLS with and without ALPN, and h2c)
// that answers every well-formed `POST /3/device/<token>` with an APNs-shaped 200.
// Full validation arrives with the MockAPNs library.

let version = "0.1.0"
let usage = """
    OVERVIEW: A mock of Apple Push Notification service (APNs) for tests and CI.

    USAGE: apns-mock [--host ADDR] [--port N] [--no-tls] [--tls-cert PEM --tls-key PEM]

    OPTIONS:
      --host ADDR         Address to listen on (default: 127.0.0.1).
      --port N            Port to listen on (default: 2197; 0 picks a free port).
      --no-tls            Serve HTTP/2 by prior knowledge (h2c) instead of TLS.
      --tls-cert PEM      Server certificate (default: certs/server.pem).
      --tls-key PEM       Server private key (default: certs/server.key).
      --version           Print the version.
      -h, --help          Show help information.

    """

struct UsageError: Error { var message: String }

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("Error: \(message)\nUsage: apns-mock [--host ADDR] [--port N] [--no-tls] [--tls-cert PEM --tls-key PEM]\nSee 'apns-mock --help'.\n".utf8))
    exit(2)
}

var host = "127.0.0.1"
var port = 2197
var useTLS = true
let certsDirectory = ProcessInfo.processInfo.environment["APNS_MOCK_CERTS"] ?? "certs"
var certPath = "\(certsDirectory)/server.pem"
var keyPath = "\(certsDirectory)/server.key"

var arguments = CommandLine.arguments.dropFirst()
@MainActor func value(for flag: String) -> String {
    guard let next = arguments.popFirst() else { fail("\(flag) needs a value") }
    return next
}
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help": print(usage, terminator: ""); exit(0)
    case "--version": print(version); exit(0)
    case "--host": host = value(for: argument)
    case "--port":
        let text = value(for: argument)
        guard let number = Int(text), (0...65535).contains(number) else { fail("--port expects 0-65535, got '\(text)'") }
        port = number
    case "--no-tls": useTLS = false
    case "--tls-cert": certPath = value(for: argument)
    case "--tls-key": keyPath = value(for: argument)
    default: fail("unknown option '\(argument)'")
    }
}

signal(SIGPIPE, SIG_IGN)
var configuration = HTTPServerConfiguration(host: host, port: port)
if useTLS {
    configuration.tls = .makeServerConfiguration(certificateChainPath: certPath, privateKeyPath: keyPath)
}
let server: HTTPServer
do {
    let threads = Int(ProcessInfo.processInfo.environment["APNS_MOCK_THREADS"] ?? "") ?? ProcessInfo.processInfo.activeProcessorCount
    server = try HTTPServer(configuration: configuration, handler: StubAPNsHandler(), group: try EventLoopGroup(threads: threads))
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
let scheme = useTLS ? "https" : "http (h2c)"
print("apns-mock \(version) listening on \(scheme)://\(server.localAddress)")
if useTLS { print("CA certificate: \(certsDirectory)/ca.pem") }

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
print("apns-mock stopped")
