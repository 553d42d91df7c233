"""Inside the sandbox: relay 127.0.0.1 ports to the runner's endpoint sockets, then run
the candidate. The sandbox has no network but its own loopback; each allowed endpoint is
a Unix socket of the runner's proxy, bound into the sandbox, which this relays to a TCP
port the candidate can use. Standard library only: it runs on the runner's interpreter
without the project installed (`python -I relay.py PORT=SOCKET ... -- CMD ...`).
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for end, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            try:
                end.shutdown(how)
            except OSError:
                pass


def _serve(listener: socket.socket, path: str) -> None:
    while True:
        client, _ = listener.accept()
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
        except OSError:
            client.close()
            upstream.close()
            continue
        threading.Thread(target=_pipe, args=(client, upstream), daemon=True).start()
        threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()


def main(argv: list[str]) -> int:
    split = argv.index("--")
    for spec in argv[:split]:
        port, path = spec.split("=", 1)
        listener = socket.create_server(("127.0.0.1", int(port)))
        threading.Thread(target=_serve, args=(listener, path), daemon=True).start()
    try:
        child = subprocess.Popen(argv[split + 1 :])
    except OSError as exc:
        print(f"s8f-duck sandbox: cannot run {argv[split + 1]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda number, _frame: child.send_signal(number))
    code = child.wait()
    return code if code >= 0 else 128 - code


if __name__ == "__main__":
    os.umask(0o077)
    sys.exit(main(sys.argv[1:]))
