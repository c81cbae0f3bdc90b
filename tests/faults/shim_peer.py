#!/usr/bin/env python3
"""tests/faults/shim_peer.py: a plain Python sockets program run under the SOVIA shim by
shim_kill.sh, to see what an unmodified program is told when its peer or nicd dies.

  shim_peer.py send HOST PORT            connect and send until killed
  shim_peer.py recv PORT MODE            accept one connection and read it until an error or
                                         end of file; MODE: recv (blocking), read (os.read),
                                         recvmsg, select, poll, epoll, epollet (non-blocking
                                         recv after the wait), half (blocking recv after
                                         shutdown(SHUT_WR))
  shim_peer.py listen PORT MODE          wait for a connection on the listener with MODE
                                         (select, poll, epoll, epollet; non-blocking for the
                                         epolls, as event loops have it), then accept; after
                                         an error, wait 1 s more

Prints one line: "EOF <bytes>", "ERR <errno name> <bytes>" or, for listen, "READY <events>"
followed by "ACCEPT ok" or "ACCEPT ERR <errno name>" and then "AFTER quiet" or "AFTER
<events>" (whether the listener is still reported ready once accept told the error: a loop
that waits again then sleeps instead of spinning); exits 0 (the shell judges)."""
import errno
import os
import select
import socket
import sys


def listener(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(4)
    return s


def wait_readable(fd, mode, timeout=None):
    """Blocks until fd is readable in the given way (or timeout seconds: None then); returns
    what the wait reported."""
    if mode == "select":
        r, _, x = select.select([fd], [], [fd], timeout)
        return ("readable" if r else "exceptional") if r or x else None
    if mode == "poll":
        p = select.poll()
        p.register(fd, select.POLLIN)
        got = p.poll(None if timeout is None else int(timeout * 1000))
        if not got:
            return None
        ev = got[0][1]
        return "POLLIN" + ("|POLLERR" if ev & select.POLLERR else "") + \
            ("|POLLHUP" if ev & select.POLLHUP else "")
    e = select.epoll()
    flags = select.EPOLLIN | (select.EPOLLET if mode == "epollet" else 0)
    e.register(fd, flags)
    got = e.poll(-1 if timeout is None else timeout)
    e.close()
    if not got:
        return None
    ev = got[0][1]
    return "EPOLLIN" + ("|EPOLLERR" if ev & select.EPOLLERR else "") + \
        ("|EPOLLHUP" if ev & select.EPOLLHUP else "")


def name(e):
    return errno.errorcode.get(e.errno, str(e.errno)) if e.errno else type(e).__name__


def do_recv(port, mode):
    ls = listener(port)
    c, _ = ls.accept()
    total = 0
    if mode in ("select", "poll", "epoll", "epollet"):
        c.setblocking(False)
    if mode == "half":              # our side is done (FIN sent); the peer's stream is not
        c.shutdown(socket.SHUT_WR)
        mode = "recv"
    try:
        while True:
            if mode == "read":
                b = os.read(c.fileno(), 65536)
            elif mode == "recvmsg":
                b = c.recvmsg(65536)[0]
            elif mode == "recv":
                b = c.recv(65536)
            else:
                wait_readable(c.fileno(), mode)
                try:
                    b = c.recv(65536)
                except BlockingIOError:
                    continue
            if not b:
                print("EOF", total, flush=True)
                return
            total += len(b)
    except OSError as e:
        print("ERR", name(e), total, flush=True)


def do_listen(port, mode):
    ls = listener(port)
    print("LISTENING", flush=True)
    if mode.startswith("epoll"):
        ls.setblocking(False)
    print("READY", wait_readable(ls.fileno(), mode), flush=True)
    try:
        ls.accept()
        print("ACCEPT ok", flush=True)
    except OSError as e:
        print("ACCEPT ERR", name(e), flush=True)
        print("AFTER", wait_readable(ls.fileno(), mode, 1.0) or "quiet", flush=True)


def do_send(host, port):
    s = socket.create_connection((host, port))
    buf = b"v" * 65536
    while True:
        s.sendall(buf)


if __name__ == "__main__":
    if sys.argv[1] == "send":
        do_send(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "recv":
        do_recv(int(sys.argv[2]), sys.argv[3])
    else:
        do_listen(int(sys.argv[2]), sys.argv[3])
