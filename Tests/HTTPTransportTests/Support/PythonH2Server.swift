import PushTestSupport
import Testing

/// Runs a python3 script that serves one connection with the `h2` package, an HTTP/2
/// implementation independent of ours, in the background.
///
/// The script gets `prelude` first; its `accept_one()` opens a listener on a free port,
/// announces it on stdout (`port N`) and returns the accepted socket, and
/// `serve_until_request(sock)` does the server's side of the handshake until a request came.
enum PythonH2Server {
    static let prelude = #"""
import socket, sys

def accept_one():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    print("port", listener.getsockname()[1], flush=True)
    sock, _ = listener.accept()
    sock.settimeout(20)
    return sock

def serve_until_request(sock):
    """Answers the HTTP/2 handshake with the h2 package until a request has arrived."""
    import h2.config, h2.connection, h2.events
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    received = False
    while not received:
        data = sock.recv(65536)
        if not data:
            sys.exit("the client closed first")
        for event in conn.receive_data(data):
            received = received or isinstance(event, h2.events.RequestReceived)
        sock.sendall(conn.data_to_send())
    return conn

"""#

    /// Starts `prelude + script` with `arguments` and waits until it listens.
    static func start(_ script: String, _ arguments: [String] = []) async throws -> (process: BackgroundProcess, port: Int) {
        let process = try BackgroundProcess("/usr/bin/env", ["python3", "-c", prelude + script] + arguments)
        let announced = await onThread { process.waitForOutput(containing: "\n") }
        let portText = announced?.split(separator: "\n").first?.split(separator: " ").last
        guard let port = portText.flatMap({ Int($0) }) else {
            _ = process.terminate()
            throw PythonH2ServerError(description: "the python server did not start: \(process.standardError)")
        }
        return (process, port)
    }
}

struct PythonH2ServerError: Error, CustomStringConvertible {
    let description: String
}
