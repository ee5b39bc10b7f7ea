import Foundation

/// python3 scripts that talk HTTP/2 to the mock with the `h2` and `hyperframe` packages, an
/// implementation independent of ours. Trimmed from HTTPTransportTests' `PythonH2`.
///
/// Each script gets `prelude` first, reads its arguments from `sys.argv[1:]` and prints one JSON
/// object as its last line, which `run` decodes.
enum AcceptancePython {
    /// Helpers shared by every script: connecting (h2c, or TLS with an optional client
    /// certificate), APNs push headers, and a `Client` that records every h2 event with its time.
    static let prelude = #"""
import json, socket, ssl, sys, time
import h2.config, h2.connection, h2.events, h2.exceptions

def push_headers(device, token=None, topic="com.example.app", authority="127.0.0.1", scheme="http"):
    headers = [(":method", "POST"), (":scheme", scheme), (":path", "/3/device/" + device), (":authority", authority),
               ("apns-topic", topic), ("apns-push-type", "alert")]
    if token:
        headers.append(("authorization", "bearer " + token))
    return headers

PAYLOAD = b'{"aps":{"alert":"hi"}}'

def connect(port, host="127.0.0.1", tls=False, cafile=None, alpn=("h2",), server_name="localhost", cert=None, key=None):
    sock = socket.create_connection((host, port), timeout=5)
    selected = None
    if tls:
        ctx = ssl.create_default_context(cafile=cafile)
        if cert is not None:
            ctx.load_cert_chain(cert, key)
        if alpn is not None:
            ctx.set_alpn_protocols(list(alpn))
        sock = ctx.wrap_socket(sock, server_hostname=server_name)
        selected = sock.selected_alpn_protocol()
    return Client(sock, selected)

class Client:
    def __init__(self, sock, alpn):
        self.sock = sock
        self.alpn = alpn
        self.conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sock.sendall(self.conn.data_to_send())
        self.start = time.monotonic()
        self.events = []
        self.closed_at = None
        self.error = None
        self.timed_out = False

    def now(self):
        return time.monotonic() - self.start

    def send(self, stream_id, headers, body=None):
        self.conn.send_headers(stream_id, headers, end_stream=body is None)
        if body is not None:
            self.conn.send_data(stream_id, body, end_stream=True)
        self.sock.sendall(self.conn.data_to_send())

    def pump(self, until, timeout=5.0):
        """Reads until until(self) is true, the peer closes, or timeout seconds pass."""
        deadline = time.monotonic() + timeout
        while not until(self) and self.closed_at is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.timed_out = True
                return
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                self.timed_out = True
                return
            except (ConnectionError, ssl.SSLError, OSError) as e:
                self.error = repr(e)
                data = b""
            if not data:
                self.closed_at = self.now()
                return
            try:
                for event in self.conn.receive_data(data):
                    self.events.append((self.now(), event))
            except h2.exceptions.ProtocolError as e:
                self.error = repr(e)
            out = self.conn.data_to_send()
            if out:
                try:
                    self.sock.sendall(out)
                except OSError:
                    pass

    def read_frames(self, timeout=5.0, until=lambda frames: False):
        """Reads raw frames with hyperframe until until(frames) holds or the peer closes: h2's state
        machine hides frames on closed streams and refuses frames that follow a GOAWAY."""
        import hyperframe.frame
        deadline = time.monotonic() + timeout
        buffer, frames = b"", []
        while self.closed_at is None and not until(frames):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.timed_out = True
                break
            self.sock.settimeout(remaining)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                self.timed_out = True
                break
            except OSError as e:
                self.error, data = repr(e), b""
            if not data:
                self.closed_at = self.now()
            buffer += data
            while len(buffer) >= 9:
                frame, length = hyperframe.frame.Frame.parse_frame_header(memoryview(buffer[:9]))
                if len(buffer) < 9 + length:
                    break
                frame.parse_body(memoryview(buffer[9:9 + length]))
                frames.append((self.now(), frame))
                buffer = buffer[9 + length:]
        return frames

    def responses(self):
        """Per stream id: status, headers, body, end time, reset code."""
        result = {}
        for at, event in self.events:
            sid = getattr(event, "stream_id", None)
            if sid is None:
                continue
            entry = result.setdefault(sid, {"stream": sid, "status": 0, "headers": [], "body": "", "ended": None, "reset": None, "received": None})
            if isinstance(event, h2.events.ResponseReceived):
                entry["headers"] = [[n, v] for n, v in event.headers]
                entry["status"] = int(dict(event.headers).get(":status", "0"))
                entry["received"] = at
            elif isinstance(event, h2.events.DataReceived):
                entry["body"] += event.data.decode("utf-8", "replace")
                self.conn.acknowledge_received_data(event.flow_controlled_length, sid)
            elif isinstance(event, h2.events.StreamEnded):
                entry["ended"] = at
            elif isinstance(event, h2.events.StreamReset):
                entry["reset"] = int(event.error_code)
        return result

    def ended(self, *stream_ids):
        r = self.responses()
        return all(s in r and (r[s]["ended"] is not None or r[s]["reset"] is not None) for s in stream_ids)

    def goaways(self):
        return [{"at": at, "error": int(e.error_code), "last_stream": e.last_stream_id,
                 "debug": (e.additional_data or b"").decode("utf-8", "replace")}
                for at, e in self.events if isinstance(e, h2.events.ConnectionTerminated)]

    def settings(self):
        return [{"at": at, "values": {str(int(k)): v.new_value for k, v in e.changed_settings.items()}}
                for at, e in self.events if isinstance(e, h2.events.RemoteSettingsChanged)]

    def report(self, **extra):
        out = {"alpn": self.alpn, "responses": list(self.responses().values()), "goaways": self.goaways(),
               "settings": self.settings(), "closed_at": self.closed_at, "error": self.error, "timed_out": self.timed_out}
        out.update(extra)
        print(json.dumps(out))
"""#

    /// The JSON a script's `client.report()` prints.
    struct Report: Decodable, Sendable {
        struct Response: Decodable, Sendable {
            var stream: Int
            var status: Int
            var headers: [[String]]
            var body: String
            var ended: Double?
            var reset: Int?
        }
        struct GoAway: Decodable, Sendable {
            var at: Double
            var error: Int
            var last_stream: Int
            var debug: String
        }
        struct Settings: Decodable, Sendable {
            var at: Double
            var values: [String: Int]
        }
        var responses: [Response]
        var goaways: [GoAway]
        var settings: [Settings]
        var closed_at: Double?
        var error: String?
        var timed_out: Bool

        func response(_ stream: Int) -> Response? { responses.first { $0.stream == stream } }

        /// SETTINGS_MAX_CONCURRENT_STREAMS values in arrival order, repeats of the previous value dropped.
        static func streamLimits(in settings: [Settings]) -> [Int] {
            settings.compactMap { $0.values["3"] }.reduce(into: []) { limits, value in
                if limits.last != value { limits.append(value) }
            }
        }
    }

    /// Runs `prelude + script` with `arguments` on a thread of its own and decodes its last output line.
    static func run<Output: Decodable & Sendable>(
        _ script: String, _ arguments: [String], as type: Output.Type = Report.self, timeout: TimeInterval = 60
    ) async throws -> Output {
        let result = try await onThread { try ChildProcess.run("python3", ["-c", prelude + "\n" + script] + arguments, timeout: timeout) }
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ChildProcessError(description: "python failed (status \(result.status)):\n\(result.stdout)\n\(result.stderr)")
        }
        do {
            return try JSONDecoder().decode(Output.self, from: Data(line.utf8))
        } catch {
            throw ChildProcessError(description: "cannot decode python output \(line): \(error)\n\(result.stderr)")
        }
    }
}
