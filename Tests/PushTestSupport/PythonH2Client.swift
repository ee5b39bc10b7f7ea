import Foundation

/// The python `h2` client both test targets drive servers with: an HTTP/2 implementation
/// independent of ours. Each target adds its own `connect` and helpers in front of it.
public enum PythonH2Client {
    /// The python `Client` class: records every h2 event with its arrival time and prints
    /// a JSON report (`PythonH2Report`) from `client.report()`.
    public static let clientClass = #"""
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

    # Waits default to 20 s: a bound for a loaded machine, returned from as soon as met.
    def pump(self, until, timeout=20.0):
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

    def read_frames(self, timeout=20.0, until=lambda frames: False):
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
}

/// The JSON a script's `client.report()` prints.
public struct PythonH2Report: Decodable, Sendable {
    public struct Response: Decodable, Sendable {
        public var stream: Int
        public var status: Int
        public var headers: [[String]]
        public var body: String
        public var ended: Double?
        public var reset: Int?
    }
    public struct GoAway: Decodable, Sendable {
        public var at: Double
        public var error: Int
        public var last_stream: Int
        public var debug: String
    }
    public struct Settings: Decodable, Sendable {
        public var at: Double
        public var values: [String: Int]
    }
    public var alpn: String?
    public var responses: [Response]
    public var goaways: [GoAway]
    public var settings: [Settings]
    public var closed_at: Double?
    public var error: String?
    public var timed_out: Bool

    public func response(_ stream: Int) -> Response? { responses.first { $0.stream == stream } }

    /// SETTINGS_MAX_CONCURRENT_STREAMS values in arrival order, repeats of the previous value dropped.
    public static func streamLimits(in settings: [Settings]) -> [Int] {
        settings.compactMap { $0.values["3"] }.reduce(into: []) { limits, value in
            if limits.last != value { limits.append(value) }
        }
    }
}
