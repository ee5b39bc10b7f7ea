// The transport benchmark's server: HTTPTransport answering every request with an
// APNs-shaped 200 (a fresh apns-id, no body), and nothing else, so that h2load measures
// the transport against nghttpd. Usage: transport-bench-server PORT [--tls CERT KEY]
import APNsCore
import Foundation
import HTTPTransport

struct APNsShaped200: HTTPServerHandler {
    let ids = APNsIDGenerator()

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        responder.respond(HTTPResponse(status: 200, headers: [APNsHeaderName.id: request.headers[APNsHeaderName.id] ?? ids.next()]))
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 2, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("Usage: transport-bench-server PORT [--tls CERT KEY]\n".utf8))
    exit(2)
}
signal(SIGPIPE, SIG_IGN)
var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: port)
if arguments.count == 5, arguments[2] == "--tls" {
    configuration.tls = .makeServerConfiguration(certificateChainPath: arguments[3], privateKeyPath: arguments[4])
}
do {
    let server = try HTTPServer(configuration: configuration, handler: APNsShaped200())
    FileHandle.standardOutput.write(Data("listening on \(server.localAddress)\n".utf8))
    while true { sleep(3600) }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
