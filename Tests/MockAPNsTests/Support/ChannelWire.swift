import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport

/// Sends channel management requests and broadcasts to a mock over real HTTP/2, through
/// this package's `HTTP2Client` or the independent python `h2` client, and reads back the
/// answers the same way for both.
enum ChannelWire {
    /// Which listener a request goes to.
    enum Listener: String, Sendable {
        case channels, pushes
    }

    struct Request: Sendable, CustomStringConvertible {
        var label: String
        var listener: Listener
        var method: String
        var path: String
        var headers: [(String, String)]
        var body: [UInt8]

        var description: String { label }
    }

    struct Answer: Sendable, Hashable {
        var status: Int
        var headers: [String: String]
        var body: String

        /// The reason of an error body, nil otherwise.
        var reason: String? {
            guard let data = body.data(using: .utf8), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
            else { return nil }
            return object["reason"] as? String
        }
    }

    static func url(_ listener: Listener, _ environment: APNsEnvironment, of mock: MockAPNsServer) -> String {
        switch (listener, environment) {
        case (.channels, .sandbox): mock.channelSandboxURL
        case (.channels, .production): mock.channelProductionURL
        case (.pushes, .sandbox): mock.sandboxURL
        case (.pushes, .production): mock.productionURL
        }
    }

    /// Sends `requests` in order through `HTTP2Client`, one connection per listener.
    static func sendWithOurClient(_ requests: [Request], environment: APNsEnvironment, to mock: MockAPNsServer) async throws -> [Answer] {
        var clients: [Listener: HTTP2Client] = [:]
        defer { for client in clients.values { Task { await client.close() } } }
        var answers: [Answer] = []
        for request in requests {
            let client = try clients[request.listener] ?? Acceptance.client(for: url(request.listener, environment, of: mock), trust: mock.trustRootsPath)
            clients[request.listener] = client
            var headers = HTTPHeaders()
            for (name, value) in request.headers { headers.add(name: name, value: value) }
            let response = try await client.send(HTTPClientRequest(method: request.method, path: request.path, headers: headers, body: request.body))
            var seen: [String: String] = [:]
            for field in response.headers { seen[field.name.lowercased()] = field.value }
            answers.append(Answer(status: response.status, headers: seen, body: String(decoding: response.body, as: UTF8.self)))
        }
        return answers
    }

    /// The python side: one TLS connection per listener port, requests sent one at a time.
    static let pythonScript = #"""
import base64
spec = json.loads(open(sys.argv[1]).read())
clients = {}
answers = []
for request in spec["requests"]:
    port = request["port"]
    if port not in clients:
        clients[port] = [connect(port, tls=True, cafile=spec["cafile"]), 1]
    client, stream = clients[port]
    clients[port][1] += 2
    headers = [(":method", request["method"]), (":scheme", "https"), (":path", request["path"]), (":authority", "localhost")]
    headers += [(n, v) for n, v in request["headers"]]
    body = base64.b64decode(request["body"])
    client.send(stream, headers, body if body else None)
    def ended(c, stream=stream):
        return any(isinstance(e, h2.events.StreamEnded) and e.stream_id == stream for _, e in c.events)
    client.pump(ended, timeout=20)
    status, fields, data = 0, {}, b""
    for _, e in client.events:
        if isinstance(e, h2.events.ResponseReceived) and e.stream_id == stream:
            for n, v in e.headers:
                if n == ":status":
                    status = int(v)
                else:
                    fields[n] = v
        elif isinstance(e, h2.events.DataReceived) and e.stream_id == stream:
            data += e.data
            client.conn.acknowledge_received_data(e.flow_controlled_length, stream)
    client.sock.sendall(client.conn.data_to_send())
    answers.append({"status": status, "headers": fields, "body": data.decode("utf-8", "replace")})
print(json.dumps(answers))
"""#

    private struct PythonAnswer: Decodable, Sendable {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    /// Sends `requests` in order through python's `h2`, one connection per listener.
    static func sendWithPython(_ requests: [Request], environment: APNsEnvironment, to mock: MockAPNsServer) async throws -> [Answer] {
        let spec: [String: Any] = [
            "cafile": mock.trustRootsPath ?? "",
            "requests": requests.map { request -> [String: Any] in
                [
                    "port": Acceptance.address(of: url(request.listener, environment, of: mock)).port,
                    "method": request.method, "path": request.path,
                    "headers": request.headers.map { [$0.0, $0.1] },
                    "body": Data(request.body).base64EncodedString(),
                ]
            },
        ]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("channel-wire-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: spec).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let answers = try await AcceptancePython.run(pythonScript, [file.path], as: [PythonAnswer].self, timeout: 120)
        return answers.map { Answer(status: $0.status, headers: $0.headers, body: $0.body) }
    }
}
