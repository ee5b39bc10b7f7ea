#!/usr/bin/env python3
"""Memory per idle HTTP/2 connection: opens N TLS connections to 127.0.0.1:PORT (ALPN h2,
preface and SETTINGS sent, the server's SETTINGS read and acknowledged), holds them idle,
and prints how much the server process PID's resident memory grew per connection, in KiB;
then closes them and prints how much of that growth per connection is still resident 2 s
later.
Ten connections are opened first, so one-off costs are not counted. Used by
scripts/bench-transport.sh beside nghttpd's figure from the same run."""
import socket, ssl, sys, time

port, count, pid = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])


def resident_bytes():
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise SystemExit(f"no VmRSS for process {pid}")


context = ssl.create_default_context()
context.check_hostname = False
context.verify_mode = ssl.CERT_NONE
context.set_alpn_protocols(["h2"])


def open_idle():
    sock = context.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=10), server_hostname="localhost")
    sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
    sock.recv(4096)
    sock.sendall(bytes([0, 0, 0, 4, 1, 0, 0, 0, 0]))  # SETTINGS ACK
    return sock


warm = [open_idle() for _ in range(10)]
time.sleep(0.5)
before = resident_bytes()
idle = [open_idle() for _ in range(count)]
time.sleep(1.0)
after = resident_bytes()
for sock in idle:
    sock.close()
time.sleep(2.0)
closed = resident_bytes()
print(f"{(after - before) / count / 1024:.1f} {(closed - before) / count / 1024:.1f}")
for sock in warm:
    sock.close()
